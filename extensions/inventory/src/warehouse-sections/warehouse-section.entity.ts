import { BaseResource, BelongsTo, ResourceModel } from '@wharf/core';
import { Column, Entity, Relation } from 'typeorm';
import { Warehouse } from '../warehouses/warehouse.entity';
import { WarehouseSectionDto } from './warehouse-section.dto';

@Entity('warehouse_sections')
@ResourceModel('warehouse-section', { dto: WarehouseSectionDto, searchable: ['name'] })
export class WarehouseSection extends BaseResource {
  @Column('uuid') warehouse_uuid: string;
  @Column('varchar') name: string;
  @Column({ type: 'text', nullable: true }) description: string | null;

  @BelongsTo(() => Warehouse, { inverse: 'sections', onDelete: 'CASCADE' }) warehouse: Relation<Warehouse>;
}
