import { Location } from './location.entity';
import { Resource } from '@wharf/core';

@Resource(Location)
export class LocationController {}
