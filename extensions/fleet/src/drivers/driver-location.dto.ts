import { IsNumber, IsOptional, Max, Min } from 'class-validator';

/** Body of `POST /fleet/int/v1/drivers/:uuid/location`. */
export class DriverLocationDto {
  @IsNumber() @Min(-90) @Max(90) latitude: number;
  @IsNumber() @Min(-180) @Max(180) longitude: number;
  /** Degrees clockwise from north. */
  @IsOptional() @IsNumber() @Min(0) @Max(360) heading?: number | null;
  /** Metres per second. */
  @IsOptional() @IsNumber() @Min(0) speed?: number | null;
}

/** A driver's current location, as stored and as sent in `driver.location_changed`. */
export interface DriverLocation {
  latitude: number;
  longitude: number;
  heading: number | null;
  speed: number | null;
  recorded_at: string;
}
