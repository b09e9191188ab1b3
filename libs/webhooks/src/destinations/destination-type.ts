/**
 * The shape of a destination type: a small module that says what its config is (a JSON Schema whose secret
 * fields are `writeOnly`), how to reach its broker, and how to publish one message and close. The registry
 * (destination-types.ts) lists them; the dispatcher picks one per delivery by the endpoint's `type`.
 */

export type JsonSchema = Record<string, any>;
export type DestinationConfig = Record<string, unknown>;

/** What a type says of itself, as GET /int/v1/destination-types serves it. */
export interface DestinationTypeInfo {
  name: string;
  description: string;
  /** JSON Schema of every field of `config`, credentials included, each secret one `writeOnly: true`. */
  configSchema: JsonSchema;
}

/** The address a connection dials, after the target policy checked it. */
export interface Dial {
  /** The checked IP address the socket goes to. */
  address: string;
  /** The host name of the URL (TLS verifies the certificate against it). */
  host: string;
  port: number;
  tls: boolean;
  /** The URL's path (a RabbitMQ vhost, a Redis database), as written. */
  path: string;
}

/** One message to publish: the envelope and the Standard Webhooks headers that sign it. */
export interface Publication {
  event: string;
  eventId: string;
  body: string;
  /** webhook-id, webhook-timestamp, webhook-signature and content-type. */
  headers: Record<string, string>;
  timeoutMs: number;
}

/** What the broker answered: `ok` is its acknowledgement; `answer` is the one line the request log shows. */
export interface BrokerAnswer {
  ok: boolean;
  answer: string | null;
  /** The acknowledgement's fields (stream and sequence, message id …), logged as the answer's headers. */
  fields: Record<string, string> | null;
  error: string | null;
}

/** One open connection (or channel) to a broker, shared by every delivery to the same target and credentials. */
export interface BrokerConnection {
  publish(config: DestinationConfig, message: Publication): Promise<BrokerAnswer>;
  /** True once the connection closed or failed: the next attempt opens a new one. */
  readonly broken: boolean;
  close(): Promise<void>;
}

/** A broker destination type: the info, plus how to reach, describe and connect to its broker. */
export interface BrokerType extends DestinationTypeInfo {
  /** URL schemes: the plain one and the TLS one (the only one allowed in production). */
  schemes: { plain: string; tls: string };
  defaultPort: number;
  /** The config fields a connection depends on besides its URL (credentials): one connection per value. */
  connectionFields: string[];
  /** Where a message of `event` goes, as the request log shows it (no credentials). */
  target(config: DestinationConfig, event: string): string;
  connect(dial: Dial, config: DestinationConfig, timeoutMs: number): Promise<BrokerConnection>;
}

export const ok = (answer: string, fields: Record<string, string> | null = null): BrokerAnswer => ({
  ok: true,
  answer,
  fields,
  error: null,
});

export const failed = (error: string, answer: string | null = null): BrokerAnswer => ({
  ok: false,
  answer,
  fields: null,
  error,
});

/** A config's string field, or undefined. */
export function field(config: DestinationConfig, name: string): string | undefined {
  const value = config[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The schema of a broker URL field: its schemes, never credentials (those are fields of their own). */
export function urlSchema(schemes: { plain: string; tls: string }, example: string): JsonSchema {
  return {
    type: 'string',
    maxLength: 2048,
    pattern: `^(${schemes.plain}|${schemes.tls})://`,
    description: `${schemes.plain}:// or ${schemes.tls}:// (TLS), host and port; credentials go in their own fields.`,
    examples: [example],
  };
}

export const SECRET_STRING = { type: 'string', maxLength: 2048, writeOnly: true };
export const NAME_STRING = { type: 'string', maxLength: 255 };
