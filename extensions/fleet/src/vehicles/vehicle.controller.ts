import { Resource } from '@wharf/core';

@Resource('vehicle')
export class VehicleController {}
