import { Injectable } from '@nestjs/common';
import { ATTRIBUTES_POINTER, ApiError, BODY_POINTER, ResourceServices, validateDto } from '@wharf/core';
import { DriverLocation, DriverLocationDto } from './driver-location.dto';
import { Driver } from './driver.entity';

/**
 * The hottest write of a fleet: one UPDATE of the driver's location columns (no read before it, no
 * `driver.updated` diff) and one `driver.location_changed` outbox row, committed together.
 */
@Injectable()
export class DriverLocationService {
  constructor(private readonly services: ResourceServices) {}

  async record(uuid: string, body: unknown) {
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      throw ApiError.invalid(BODY_POINTER, 'The body must be a JSON object: {"latitude", "longitude", …}.');
    const errors = validateDto(
      DriverLocationDto,
      body as Record<string, unknown>,
      false,
      ATTRIBUTES_POINTER,
      'a driver location',
    );
    if (errors.length) throw new ApiError(422, errors);
    const input = body as DriverLocationDto;
    const at = new Date();
    const location: DriverLocation = {
      latitude: input.latitude,
      longitude: input.longitude,
      heading: input.heading ?? null,
      speed: input.speed ?? null,
      recorded_at: at.toISOString(),
    };
    const drivers = this.services.for(Driver);
    return drivers.transaction(async (tx) => {
      const driver = await drivers.setColumnsIn(tx, uuid, { location, location_updated_at: at });
      tx.emit({ name: 'driver.location_changed', record: driver });
      return { driver };
    });
  }
}
