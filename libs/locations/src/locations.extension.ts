import { LocationController } from './location.controller';
import { Location } from './location.entity';
import { CreateLocations1700000000001 } from './migrations/1700000000001-create-locations';
import { Extension } from '@wharf/core';

/** Addresses with coordinates, shared by the extensions whose records have a place (`/int/v1/locations`). */
@Extension({
  name: 'locations',
  namespace: 'int/v1',
  entities: [Location],
  migrations: [CreateLocations1700000000001],
  controllers: [LocationController],
})
export class LocationsExtension {}
