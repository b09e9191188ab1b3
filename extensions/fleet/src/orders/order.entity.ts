import { BaseResource, BelongsTo, ResourceModel } from '@wharf/core';
import { Location } from '@wharf/locations';
import { Column, Entity, Relation } from 'typeorm';
import { Driver } from '../drivers/driver.entity';
import { ORDER_STATUSES, OrderDto } from './order.dto';
import { OrderHooks } from './order.hooks';

@Entity('orders')
@ResourceModel('order', {
  dto: OrderDto,
  searchable: ['reference', 'notes'],
  embed: ['driver', 'pickup_location', 'dropoff_location'],
  hooks: OrderHooks,
})
export class Order extends BaseResource {
  @Column({ type: 'varchar', nullable: true }) reference: string | null;
  @Column({ type: 'enum', enum: ORDER_STATUSES, default: 'created' }) status: string;
  @Column({ type: 'uuid', nullable: true }) driver_uuid: string | null;
  @Column({ type: 'uuid', nullable: true }) pickup_location_uuid: string | null;
  @Column({ type: 'uuid', nullable: true }) dropoff_location_uuid: string | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) scheduled_at: Date | null;
  @Column({ type: 'text', nullable: true }) notes: string | null;
  @Column({ type: 'jsonb' }) meta: Record<string, unknown>;

  @BelongsTo(() => Driver) driver: Relation<Driver>;
  @BelongsTo(() => Location) pickup_location: Relation<Location>;
  @BelongsTo(() => Location) dropoff_location: Relation<Location>;
}
