import { IsIn, IsInt, IsOptional, IsString, IsUUID, Max, MaxLength, Min } from 'class-validator';

export const DOCK_DIRECTIONS = ['inbound', 'outbound', 'both'];
export const DOCK_STATUSES = ['available', 'occupied', 'maintenance'];

export class WarehouseDockDto {
  @IsOptional() @IsUUID() warehouse_uuid: string;
  @IsString() @MaxLength(255) dock_number: string;
  @IsOptional() @IsIn(DOCK_DIRECTIONS) direction?: string;
  @IsOptional() @IsInt() @Min(0) @Max(2_147_483_647) capacity?: number | null;
  @IsOptional() @IsIn(DOCK_STATUSES) status?: string;
}
