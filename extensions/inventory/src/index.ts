export * from './inventory.extension';
export * from './warehouses/warehouse.entity';
export * from './warehouse-sections/warehouse-section.entity';
export * from './warehouse-docks/warehouse-dock.entity';
