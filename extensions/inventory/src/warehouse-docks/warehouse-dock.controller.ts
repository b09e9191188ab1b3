import { Resource } from '@wharf/core';

@Resource('warehouse-dock')
export class WarehouseDockController {}
