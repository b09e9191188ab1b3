import { IsBoolean, IsInt, IsOptional, IsString, IsUUID, Max, MaxLength, Min } from 'class-validator';

export class WarehouseDto {
  @IsOptional() @IsUUID() location_uuid?: string | null;
  @IsString() @MaxLength(255) name: string;
  @IsString() @MaxLength(255) address: string;
  @IsString() @MaxLength(255) city: string;
  @IsString() @MaxLength(255) state: string;
  @IsString() @MaxLength(255) zip: string;
  @IsInt() @Min(0) @Max(2_147_483_647) capacity: number;
  @IsOptional() @IsBoolean() is_primary?: boolean;
}
