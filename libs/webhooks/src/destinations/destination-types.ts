import Ajv, { ErrorObject as AjvError, ValidateFunction } from 'ajv';
import { BrokerType, DestinationConfig, DestinationTypeInfo } from './destination-type';
import { MQTT } from './mqtt.destination';
import { NATS } from './nats.destination';
import { RABBITMQ } from './rabbitmq.destination';
import { REDIS_STREAM } from './redis-stream.destination';

/** The type of every endpoint made before there were others, and the default: a signed HTTPS POST. */
export const HTTP_TYPE = 'http';

const HTTP: DestinationTypeInfo = {
  name: HTTP_TYPE,
  description:
    "A signed POST (Standard Webhooks) to the endpoint's url, with its headers and auth; a 2xx in time is " +
    'success. Its config is empty: url, headers and auth are fields of the endpoint.',
  configSchema: { type: 'object', additionalProperties: false, properties: {} },
};

/**
 * The type of a `wharf listen` session's endpoint: its deliveries go down the session's stream to the CLI,
 * which forwards them to a local URL. Made only by opening a session (POST /int/v1/listen-sessions), so it
 * is not among the types an endpoint may be created or changed to.
 */
export const LISTEN_TYPE = 'listen';

/** Every broker type, by name. Adding one: a module like rabbitmq.destination.ts, listed here. */
export const BROKER_TYPES: ReadonlyMap<string, BrokerType> = new Map(
  [RABBITMQ, NATS, MQTT, REDIS_STREAM].map((type) => [type.name, type]),
);

export const DESTINATION_TYPES: DestinationTypeInfo[] = [HTTP, ...BROKER_TYPES.values()];
export const DESTINATION_TYPE_NAMES = DESTINATION_TYPES.map((type) => type.name);

/** The fields of a type's config that are secret (`writeOnly`): sealed, and never shown after they are written. */
export function secretFields(type: DestinationTypeInfo): string[] {
  const properties = (type.configSchema.properties ?? {}) as Record<string, { writeOnly?: boolean }>;
  return Object.keys(properties).filter((name) => properties[name].writeOnly === true);
}

/** A problem of a config, at a path inside it. */
export interface ConfigProblem {
  path: string[];
  detail: string;
}

const ajv = new Ajv({ allErrors: true });
const validators = new Map<string, ValidateFunction>(
  DESTINATION_TYPES.map((type) => [type.name, ajv.compile(type.configSchema)]),
);

function problemOf(type: string, error: AjvError): ConfigProblem {
  const path = error.instancePath.split('/').filter(Boolean);
  const params = error.params as { missingProperty?: string; additionalProperty?: string };
  if (params.missingProperty)
    return {
      path: [...path, params.missingProperty],
      detail: `config.${params.missingProperty} is required.`,
    };
  if (params.additionalProperty)
    return {
      path: [...path, params.additionalProperty],
      detail: `A ${type} config has no field ${JSON.stringify(params.additionalProperty)}.`,
    };
  return {
    path,
    detail: `config${path.map((part) => `.${part}`).join('')} ${error.message ?? 'is invalid'}.`,
  };
}

/** What is wrong with a config for its type, by the type's JSON Schema. */
export function configProblems(type: string, config: DestinationConfig): ConfigProblem[] {
  const validate = validators.get(type)!;
  if (validate(config)) return [];
  return (validate.errors ?? []).map((error) => problemOf(type, error));
}

/** What an endpoint's `config` holds, for the OpenAPI document: one of the broker types' configs. */
export const DESTINATION_CONFIG_SCHEMA = {
  description:
    "The config of the endpoint's type (null for http), by the type's JSON Schema at GET /int/v1/destination-types. " +
    'Secret fields read "[redacted]"; sending "[redacted]" back keeps the stored value.',
  anyOf: [...BROKER_TYPES.values()].map((type) => ({ title: `${type.name} config`, ...type.configSchema })),
};
