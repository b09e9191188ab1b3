import { BaseResource, BelongsTo, ResourceModel } from '@wharf/core';
import { Column, Entity, Relation } from 'typeorm';
import { Vehicle } from '../vehicles/vehicle.entity';
import { DriverLocation } from './driver-location.dto';
import { DRIVER_STATUSES, DriverDto } from './driver.dto';
import { DriverHooks } from './driver.hooks';

@Entity('drivers')
@ResourceModel('driver', {
  dto: DriverDto,
  searchable: ['name', 'phone', 'email'],
  embed: ['vehicle'],
  // Set by POST /drivers/:uuid/location only.
  readOnly: ['location', 'location_updated_at'],
  hooks: DriverHooks,
})
export class Driver extends BaseResource {
  @Column({ type: 'uuid', nullable: true }) vehicle_uuid: string | null;
  @Column('varchar') name: string;
  @Column({ type: 'varchar', nullable: true }) phone: string | null;
  @Column({ type: 'varchar', nullable: true }) email: string | null;
  @Column({ type: 'enum', enum: DRIVER_STATUSES, default: 'active' }) status: string;
  @Column({ type: 'jsonb', nullable: true }) location: DriverLocation | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) location_updated_at: Date | null;

  @BelongsTo(() => Vehicle) vehicle: Relation<Vehicle>;
}
