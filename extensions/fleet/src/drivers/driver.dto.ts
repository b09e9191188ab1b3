import { IsEmail, IsIn, IsOptional, IsString, IsUUID, MaxLength } from 'class-validator';

export const DRIVER_STATUSES = ['active', 'inactive'];

export class DriverDto {
  @IsOptional() @IsUUID() vehicle_uuid?: string | null;
  @IsString() @MaxLength(255) name: string;
  @IsOptional() @IsString() @MaxLength(64) phone?: string | null;
  @IsOptional() @IsEmail() @MaxLength(255) email?: string | null;
  @IsOptional() @IsIn(DRIVER_STATUSES) status?: string;
}
