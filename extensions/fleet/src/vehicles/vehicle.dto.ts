import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

export const VEHICLE_STATUSES = ['active', 'inactive', 'maintenance'];

export class VehicleDto {
  @IsString() @MaxLength(255) plate_number: string;
  @IsOptional() @IsString() @MaxLength(255) make?: string | null;
  @IsOptional() @IsString() @MaxLength(255) model?: string | null;
  @IsOptional() @IsInt() @Min(1900) @Max(2100) year?: number | null;
  @IsOptional() @IsIn(VEHICLE_STATUSES) status?: string;
}
