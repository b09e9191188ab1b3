import { BaseResource, BelongsTo, ResourceModel } from '@wharf/core';
import { Min } from 'class-validator';
import { Column, Entity, Relation } from 'typeorm';
import type { Warehouse } from '../warehouses/warehouse.entity';

@Entity('warehouse_docks')
@ResourceModel('warehouse-dock', { searchable: ['dock_number'] })
export class WarehouseDock extends BaseResource {
  @Column('uuid') warehouse_uuid: string;
  @Column('varchar') dock_number: string;
  @Column({ type: 'enum', enum: ['inbound', 'outbound', 'both'], default: 'both' }) direction: string;
  @Min(0) @Column({ type: 'integer', nullable: true }) capacity: number | null;
  @Column({ type: 'enum', enum: ['available', 'occupied', 'maintenance'], default: 'available' })
  status: string;

  @BelongsTo('Warehouse', { inverse: 'docks', onDelete: 'CASCADE' }) warehouse: Relation<Warehouse>;
}
