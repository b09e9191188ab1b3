import { BaseResource, BelongsTo, HasMany, ResourceModel } from '@wharf/core';
import { Location } from '@wharf/locations';
import { Min } from 'class-validator';
import { Column, Entity } from 'typeorm';
import type { WarehouseDock } from '../warehouse-docks/warehouse-dock.entity';
import type { WarehouseSection } from '../warehouse-sections/warehouse-section.entity';

@Entity('warehouses')
@ResourceModel('warehouse', { searchable: ['name'], embed: ['location', 'sections', 'docks'] })
export class Warehouse extends BaseResource {
  @Column({ type: 'uuid', nullable: true }) location_uuid: string | null;
  @Column('varchar') name: string;
  @Column('varchar') address: string;
  @Column('varchar') city: string;
  @Column('varchar') state: string;
  @Column('varchar') zip: string;
  @Min(0) @Column('integer') capacity: number;
  @Column({ type: 'boolean', default: false }) is_primary: boolean;

  @BelongsTo(() => Location) location: Location;
  // By name: sections and docks relate back to the warehouse, and each file imports the other's type only.
  @HasMany('WarehouseSection', 'warehouse') sections: WarehouseSection[];
  @HasMany('WarehouseDock', 'warehouse') docks: WarehouseDock[];
}
