import { Extension } from '@wharf/core';
import { CreateWarehouses1700000001000 } from './migrations/1700000001000-create-warehouses';
import { CreateWarehouseSections1700000001001 } from './migrations/1700000001001-create-warehouse-sections';
import { CreateWarehouseDocks1700000001002 } from './migrations/1700000001002-create-warehouse-docks';
import { ListIndexes1700000001003 } from './migrations/1700000001003-list-indexes';
import { SearchIndexes1700000001004 } from './migrations/1700000001004-search-indexes';
import { WarehouseDockController } from './warehouse-docks/warehouse-dock.controller';
import { WarehouseDock } from './warehouse-docks/warehouse-dock.entity';
import { WarehouseSectionController } from './warehouse-sections/warehouse-section.controller';
import { WarehouseSection } from './warehouse-sections/warehouse-section.entity';
import { WarehouseController } from './warehouses/warehouse.controller';
import { Warehouse } from './warehouses/warehouse.entity';

/** Warehouses with their sections and docks, served under /inventory/int/v1. */
@Extension({
  name: 'inventory',
  entities: [Warehouse, WarehouseSection, WarehouseDock],
  migrations: [
    CreateWarehouses1700000001000,
    CreateWarehouseSections1700000001001,
    CreateWarehouseDocks1700000001002,
    ListIndexes1700000001003,
    SearchIndexes1700000001004,
  ],
  controllers: [WarehouseController, WarehouseSectionController, WarehouseDockController],
})
export class InventoryExtension {}
