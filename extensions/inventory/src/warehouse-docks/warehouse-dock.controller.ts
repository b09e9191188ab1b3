import { Resource } from '@wharf/core';
import { WarehouseDock } from './warehouse-dock.entity';

@Resource(WarehouseDock)
export class WarehouseDockController {}
