import { BaseResource, ResourceModel } from '@wharf/core';
import { Column, Entity } from 'typeorm';
import { VEHICLE_STATUSES, VehicleDto } from './vehicle.dto';

@Entity('vehicles')
@ResourceModel('vehicle', { dto: VehicleDto, searchable: ['plate_number', 'make', 'model'] })
export class Vehicle extends BaseResource {
  @Column('varchar') plate_number: string;
  @Column({ type: 'varchar', nullable: true }) make: string | null;
  @Column({ type: 'varchar', nullable: true }) model: string | null;
  @Column({ type: 'integer', nullable: true }) year: number | null;
  @Column({ type: 'enum', enum: VEHICLE_STATUSES, default: 'active' }) status: string;
}
