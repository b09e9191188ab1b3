import { IsOptional, IsString, IsUUID, MaxLength } from 'class-validator';

export class WarehouseSectionDto {
  @IsOptional() @IsUUID() warehouse_uuid: string;
  @IsString() @MaxLength(255) name: string;
  @IsOptional() @IsString() @MaxLength(10_000) description?: string | null;
}
