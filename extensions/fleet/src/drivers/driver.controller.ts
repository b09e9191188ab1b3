import { Body, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiUuidParam, Permission, Resource, dtoSchema, resourceSchemas, schemaRef } from '@wharf/core';
import { DriverLocationDto } from './driver-location.dto';
import { DriverLocationService } from './driver-location.service';
import { Driver } from './driver.entity';

@Resource(Driver)
export class DriverController {
  constructor(private readonly locations: DriverLocationService) {}

  /** `{"latitude", "longitude", "heading"?, "speed"?}` → the driver, and `driver.location_changed`. */
  @Post(':uuid/location')
  @Permission('fleet.drivers:locate')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'recordDriverLocation',
    summary: 'Record where a driver is',
    description:
      'Sets the driver’s `location` (with `recorded_at`) and `location_updated_at`, and emits ' +
      '`driver.location_changed`. The body is the flat object, not wrapped.',
  })
  @ApiUuidParam()
  @ApiBody({ schema: dtoSchema(DriverLocationDto) })
  @ApiOkResponse({ description: 'The driver.', schema: schemaRef(resourceSchemas('driver').single) })
  location(@Param('uuid') uuid: string, @Body() body: unknown) {
    return this.locations.record(uuid, body);
  }
}
