import { Resource } from '../resources/resource.decorator';

@Resource('location')
export class LocationController {}
