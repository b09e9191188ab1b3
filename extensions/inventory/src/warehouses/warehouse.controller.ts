import { Resource } from '@wharf/core';
import { Warehouse } from './warehouse.entity';

@Resource(Warehouse)
export class WarehouseController {}
