import { Resource } from '@wharf/core';

@Resource('warehouse-section')
export class WarehouseSectionController {}
