import { Resource } from '@wharf/core';
import { Vehicle } from './vehicle.entity';

@Resource(Vehicle)
export class VehicleController {}
