import { Resource } from '../resources/resource.decorator';
import { Location } from './location.entity';

@Resource(Location)
export class LocationController {}
