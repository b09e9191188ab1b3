import { Resource } from '@wharf/core';

@Resource('warehouse')
export class WarehouseController {}
