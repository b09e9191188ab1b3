import { BaseResource, BelongsTo, ResourceModel } from '@wharf/core';
import { Column, Entity, Relation } from 'typeorm';
import { Warehouse } from '../warehouses/warehouse.entity';
import { DOCK_DIRECTIONS, DOCK_STATUSES, WarehouseDockDto } from './warehouse-dock.dto';

@Entity('warehouse_docks')
@ResourceModel('warehouse-dock', { dto: WarehouseDockDto, searchable: ['dock_number'] })
export class WarehouseDock extends BaseResource {
  @Column('uuid') warehouse_uuid: string;
  @Column('varchar') dock_number: string;
  @Column({ type: 'enum', enum: DOCK_DIRECTIONS, default: 'both' }) direction: string;
  @Column({ type: 'integer', nullable: true }) capacity: number | null;
  @Column({ type: 'enum', enum: DOCK_STATUSES, default: 'available' }) status: string;

  @BelongsTo(() => Warehouse, { inverse: 'docks', onDelete: 'CASCADE' }) warehouse: Relation<Warehouse>;
}
