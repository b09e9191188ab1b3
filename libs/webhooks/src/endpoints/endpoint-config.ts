import { ErrorObject, attributePointer, errorObject } from '@wharf/core';
import { brokerUrlRefusal } from '../destinations/broker-target';
import { DestinationConfig } from '../destinations/destination-type';
import {
  BROKER_TYPES,
  HTTP_TYPE,
  LISTEN_TYPE,
  configProblems,
  secretFields,
} from '../destinations/destination-types';
import { REDACTED } from '../transport/endpoint-auth';
import { TargetPolicy } from '../transport/target-policy';
import { AppKeys, encryptSecret, openSecret } from './secrets';

/** The destination columns of a stored endpoint. */
export interface StoredDestination {
  type: string;
  url: string;
  config_sealed: string | null;
}

const problem = (detail: string, ...path: (string | number)[]) =>
  errorObject(422, detail, { source: { pointer: attributePointer(...path) } });

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A sealed config opened with APP_KEY or APP_KEY_PREVIOUS; undefined when no key opens it. */
export function openConfig(sealed: string, keys: AppKeys): DestinationConfig | undefined {
  const opened = openSecret(sealed, keys);
  return opened ? (JSON.parse(opened.secret) as DestinationConfig) : undefined;
}

/** A stored endpoint's type and opened config; `unreadable` says why when no key opens the config. */
export function openDestination(row: StoredDestination, keys: AppKeys) {
  const config = row.config_sealed ? openConfig(row.config_sealed, keys) : undefined;
  const unreadable =
    row.config_sealed && !config
      ? 'its config cannot be decrypted with APP_KEY or APP_KEY_PREVIOUS'
      : undefined;
  return { type: row.type, config, unreadable };
}

/** The config as every read shows it: each secret field that is set reads "[redacted]". */
export function maskedConfig(type: string, config: DestinationConfig): DestinationConfig {
  const masked = { ...config };
  for (const name of secretFields(BROKER_TYPES.get(type)!)) if (name in masked) masked[name] = REDACTED;
  return masked;
}

/** An http endpoint: no config; a url of its own (checked by the hooks). */
function httpWrite(values: Record<string, unknown>, changed: boolean, created: boolean): ErrorObject[] {
  const config = values.config;
  if (isObject(config) && Object.keys(config).length)
    return [
      problem(
        'An http endpoint has no config: its url, headers and auth are fields of the endpoint.',
        'config',
      ),
    ];
  if (config !== undefined || changed) {
    values.config = null;
    values.config_sealed = null;
  }
  if ((created || changed) && typeof values.url !== 'string')
    return [problem('url is required for an http endpoint.', 'url')];
  return [];
}

/**
 * A listen session's endpoint: no config, headers or auth; its url is where the CLI forwards (shown, never
 * dialled by the api or the worker). It stays a listen endpoint for as long as its session lasts.
 */
function listenWrite(values: Record<string, unknown>, changed: boolean): ErrorObject[] {
  if (changed)
    return [problem('A listen session’s endpoint keeps its type: end the session instead.', 'type')];
  const errors: ErrorObject[] = [];
  for (const name of ['config', 'headers', 'auth'])
    if (values[name] !== undefined && values[name] !== null)
      errors.push(problem(`${name} is not for a listen session’s endpoint.`, name));
  return errors;
}

/** A secret field sent back as "[redacted]" keeps its stored value (same type only). */
function keepSecrets(type: string, config: DestinationConfig, stored: DestinationConfig | undefined) {
  const errors: ErrorObject[] = [];
  for (const name of secretFields(BROKER_TYPES.get(type)!)) {
    if (config[name] !== REDACTED) continue;
    if (stored?.[name] !== undefined) config[name] = stored[name];
    else errors.push(problem(`config.${name} has no stored value to keep: send it.`, 'config', name));
  }
  return errors;
}

/**
 * Checks an endpoint write's `type` and `config` and seals the config: the whole config goes encrypted with
 * APP_KEY into config_sealed, `config` keeps it with each secret field masked, and a broker endpoint's `url`
 * becomes its config's (what lists and searches show). Problems point into config.
 */
export function sealDestination(
  values: Record<string, unknown>,
  stored: StoredDestination | undefined,
  keys: AppKeys,
  policy: TargetPolicy,
): ErrorObject[] {
  if (values.type === null)
    return [problem('type cannot be null: send one of GET /int/v1/destination-types.', 'type')];
  const type = (values.type ?? stored?.type ?? HTTP_TYPE) as string;
  const changed = stored !== undefined && type !== stored.type;
  if (stored?.type === LISTEN_TYPE || type === LISTEN_TYPE) return listenWrite(values, changed);
  if (type === HTTP_TYPE) return httpWrite(values, changed, stored === undefined);
  const broker = BROKER_TYPES.get(type)!;
  const errors: ErrorObject[] = [];
  for (const name of ['headers', 'auth'])
    if (values[name] !== undefined && values[name] !== null)
      errors.push(problem(`${name} is for http endpoints; a ${type} endpoint has none.`, name));
  const config = values.config;
  if (config === undefined || config === null) {
    if (stored === undefined || changed || config === null)
      errors.push(problem(`config is required for a ${type} endpoint.`, 'config'));
    else if (values.url !== undefined && values.url !== stored.url)
      errors.push(problem(`A ${type} endpoint's address is config.url.`, 'url'));
    return errors;
  }
  if (!isObject(config)) return [...errors, problem('config is an object.', 'config')];
  const full: DestinationConfig = { ...config };
  const before = !changed && stored?.config_sealed ? openConfig(stored.config_sealed, keys) : undefined;
  errors.push(...keepSecrets(type, full, before));
  errors.push(...configProblems(type, full).map(({ path, detail }) => problem(detail, 'config', ...path)));
  if (!errors.length) {
    const refusal = brokerUrlRefusal(full.url as string, broker, policy);
    if (refusal) errors.push(problem(`The URL is not allowed: ${refusal}.`, 'config', 'url'));
  }
  if (values.url !== undefined && values.url !== full.url)
    errors.push(problem(`A ${type} endpoint's address is config.url.`, 'url'));
  if (errors.length) return errors;
  values.config = maskedConfig(type, full);
  values.config_sealed = encryptSecret(JSON.stringify(full), keys.appKey);
  values.url = full.url;
  return [];
}
