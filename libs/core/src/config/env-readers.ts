import { parseDuration } from './duration';

// Readers of one environment variable each: the value, or its fallback when unset or blank; anything else
// is a ConfigError naming the variable. Exported as `configReaders` for the sections libraries contribute.

/** The environment a configuration is read from. */
export type Env = Record<string, string | undefined>;

/** A configuration problem, reported at boot as one line naming the variable. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`Invalid configuration: ${variable} ${problem}`);
  }
}

/** The variable's trimmed text. */
export function text(env: Env, name: string, fallback: string): string {
  const value = env[name];
  return value === undefined || value.trim() === '' ? fallback : value.trim();
}

export function integer(
  env: Env,
  name: string,
  fallback: number,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const raw = text(env, name, String(fallback));
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max) {
    throw new ConfigError(name, `must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

export function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = text(env, name, String(fallback)).toLowerCase();
  if (['true', '1', 'yes'].includes(raw)) return true;
  if (['false', '0', 'no'].includes(raw)) return false;
  throw new ConfigError(name, `must be true or false, got "${raw}"`);
}

export function url(env: Env, name: string, fallback: string, protocols: string[]): string {
  const raw = text(env, name, fallback);
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, `is not a URL: "${raw}"`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(
      name,
      `must start with ${protocols.map((p) => `${p}//`).join(' or ')}, got "${raw}"`,
    );
  }
  return raw;
}

export function oneOf<T extends string>(env: Env, name: string, fallback: T, allowed: readonly T[]): T {
  const raw = text(env, name, fallback).toLowerCase() as T;
  if (!allowed.includes(raw)) throw new ConfigError(name, `must be ${allowed.join(' or ')}, got "${raw}"`);
  return raw;
}

/** A token of at least 16 characters, or undefined when unset. */
export function secret(env: Env, name: string): string | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  if (raw.length < 16) throw new ConfigError(name, 'must be at least 16 characters long');
  return raw;
}

/** A positive number of days, fractions allowed (a soak run keeps minutes). */
export function days(env: Env, name: string, fallback: number): number {
  const raw = text(env, name, String(fallback));
  const value = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw) || !(value > 0)) {
    throw new ConfigError(name, `must be a positive number of days, got "${raw}"`);
  }
  return value;
}

/** A comma list of durations (`5s,5m,2h`, see parseDuration), in milliseconds. */
export function durations(env: Env, name: string, fallback: string): number[] {
  const raw = text(env, name, fallback);
  try {
    return raw.split(',').map(parseDuration);
  } catch (error) {
    throw new ConfigError(name, `must be a comma list of durations: ${(error as Error).message}`);
  }
}

export function positiveDuration(env: Env, name: string, fallback: string): number {
  const [ms] = durations(env, name, fallback);
  if (!(ms > 0))
    throw new ConfigError(name, `must be a positive duration, got "${text(env, name, fallback)}"`);
  return ms;
}
