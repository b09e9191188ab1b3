import { Body, HttpCode, Param, Post } from '@nestjs/common';
import { Resource } from '@wharf/core';
import { DriverLocationService } from './driver-location.service';
import { Driver } from './driver.entity';

@Resource(Driver)
export class DriverController {
  constructor(private readonly locations: DriverLocationService) {}

  /** `{"latitude", "longitude", "heading"?, "speed"?}` → the driver, and `driver.location_changed`. */
  @Post(':uuid/location')
  @HttpCode(200)
  location(@Param('uuid') uuid: string, @Body() body: unknown) {
    return this.locations.record(uuid, body);
  }
}
