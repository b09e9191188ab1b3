import { BaseResource, BelongsTo, ResourceModel } from '@wharf/core';
import { MaxLength } from 'class-validator';
import { Column, Entity, Relation } from 'typeorm';
import type { Warehouse } from '../warehouses/warehouse.entity';

@Entity('warehouse_sections')
@ResourceModel('warehouse-section', { searchable: ['name'] })
export class WarehouseSection extends BaseResource {
  @Column('uuid') warehouse_uuid: string;
  @Column('varchar') name: string;
  @MaxLength(10_000) @Column({ type: 'text', nullable: true }) description: string | null;

  @BelongsTo('Warehouse', { inverse: 'sections', onDelete: 'CASCADE' }) warehouse: Relation<Warehouse>;
}
