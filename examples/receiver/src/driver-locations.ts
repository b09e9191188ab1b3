/** A driver's location as Wharf sends it in `driver.location_changed` (`data.location`). */
export interface DriverLocation {
  latitude: number;
  longitude: number;
  heading: number | null;
  speed: number | null;
  recorded_at: string;
}

const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/** Why `location` is not a usable location, or undefined when it is. */
function problem(location: unknown): string | undefined {
  if (typeof location !== 'object' || location === null) return 'data.location is missing';
  const { latitude, longitude, heading, speed, recorded_at } = location as Record<string, unknown>;
  if (!isNumber(latitude) || latitude < -90 || latitude > 90)
    return `invalid coordinates: latitude ${JSON.stringify(latitude)} is not between -90 and 90`;
  if (!isNumber(longitude) || longitude < -180 || longitude > 180)
    return `invalid coordinates: longitude ${JSON.stringify(longitude)} is not between -180 and 180`;
  if (heading != null && (!isNumber(heading) || heading < 0 || heading > 360))
    return `invalid heading ${JSON.stringify(heading)}: expected 0 to 360 or null`;
  if (speed != null && (!isNumber(speed) || speed < 0))
    return `invalid speed ${JSON.stringify(speed)}: expected a number >= 0 or null`;
  if (typeof recorded_at !== 'string' || Number.isNaN(Date.parse(recorded_at)))
    return 'data.location.recorded_at is not a date';
  return undefined;
}

/**
 * Where this receiver keeps the last known location of each driver it tracks: your own database in a real
 * integration. `apply` throws when a location cannot be applied; the receiver answers 400 with the message.
 */
export class DriverLocations {
  private readonly locations = new Map<string, DriverLocation>();
  private readonly known?: Set<string>;

  /** @param drivers the drivers this integration tracks; a location of any other one is refused. */
  constructor(drivers?: Iterable<string>) {
    this.known = drivers ? new Set(drivers) : undefined;
  }

  track(driverId: string): void {
    this.known?.add(driverId);
  }

  get(driverId: string): DriverLocation | undefined {
    return this.locations.get(driverId);
  }

  /**
   * Stores the location of `driverId`. Deliveries can arrive out of order (retries, parallel workers), so a
   * location older than the one stored is ignored; returns whether it was stored.
   */
  apply(driverId: unknown, location: unknown): boolean {
    if (typeof driverId !== 'string' || !driverId) throw new Error('data.id (the driver) is missing');
    if (this.known && !this.known.has(driverId)) throw new Error(`unknown driver ${driverId}`);
    const refused = problem(location);
    if (refused) throw new Error(refused);
    const next = location as DriverLocation;
    const current = this.locations.get(driverId);
    if (current && Date.parse(current.recorded_at) > Date.parse(next.recorded_at)) return false;
    this.locations.set(driverId, {
      latitude: next.latitude,
      longitude: next.longitude,
      heading: next.heading ?? null,
      speed: next.speed ?? null,
      recorded_at: next.recorded_at,
    });
    return true;
  }
}
