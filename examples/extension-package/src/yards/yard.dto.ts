import { IsBoolean, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

export class YardDto {
  @IsString() @MaxLength(255) name: string;
  @IsInt() @Min(0) @Max(10_000) slots: number;
  @IsOptional() @IsBoolean() closed?: boolean;
}
