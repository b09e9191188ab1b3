import {
  IsIn,
  IsISO8601,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  MaxLength,
  ValidateIf,
} from 'class-validator';

export const ORDER_STATUSES = ['created', 'dispatched', 'enroute', 'completed', 'canceled'];

export class OrderDto {
  @IsOptional() @IsString() @MaxLength(255) reference?: string | null;
  @IsOptional() @IsIn(ORDER_STATUSES) status?: string;
  @IsOptional() @IsUUID() driver_uuid?: string | null;
  @IsOptional() @IsUUID() pickup_location_uuid?: string | null;
  @IsOptional() @IsUUID() dropoff_location_uuid?: string | null;
  @IsOptional() @IsISO8601() scheduled_at?: string | null;
  @IsOptional() @IsString() @MaxLength(10_000) notes?: string | null;
  @ValidateIf((order: OrderDto) => order.meta !== undefined) @IsObject() meta?: Record<string, unknown>;
}

/** Body of `POST /fleet/int/v1/orders/:uuid/status`. */
export class OrderStatusDto {
  @IsIn(ORDER_STATUSES) status: string;
}
