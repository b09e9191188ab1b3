import { Resource } from '@wharf/core';
import { WarehouseSection } from './warehouse-section.entity';

@Resource(WarehouseSection)
export class WarehouseSectionController {}
