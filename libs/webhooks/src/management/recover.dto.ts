import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsISO8601, IsOptional } from 'class-validator';

/** `POST /webhook-endpoints/:uuid/recover`: the window of events whose failed deliveries are sent again. */
export class RecoverDto {
  @ApiProperty({ description: 'Events created at or after this time.', format: 'date-time' })
  @IsISO8601({ strict: true })
  since: string;

  @ApiPropertyOptional({
    description: 'Events created at or before this time (default: now).',
    format: 'date-time',
  })
  @IsOptional()
  @IsISO8601({ strict: true })
  until?: string;
}
