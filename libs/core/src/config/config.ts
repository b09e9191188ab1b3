import { createHash } from 'node:crypto';
import { parseDuration } from './duration';

export type NodeEnv = 'development' | 'production' | 'test';

export interface WebhooksConfig {
  retrySchedule: number[];
  timeoutMs: number;
  allowPrivateTargets: boolean;
  concurrency: number;
  /** max_in_flight of a new endpoint: attempts to it running at once across all workers. */
  endpointConcurrency: number;
  /** Request-log rows are dropped with their partition once its newest possible row is this old (days, may be fractional). */
  logRetentionDays: number;
  /** Outbox events likewise, unless a pending delivery or the relay still needs one (see docs/data-lifecycle.md). */
  eventRetentionDays: number;
  /** The time span of one partition of webhook_events and webhook_request_logs. */
  partitionIntervalMs: number;
  /** When set, each partition is written here as gzip JSON Lines before it is dropped. */
  archiveDir: string | undefined;
  autoDisableAfterDays: number;
  senderAddresses: string[];
  /** How often the relay polls the outbox when no NOTIFY arrives. */
  pollIntervalMs: number;
  /** A pending delivery this late is re-enqueued by the sweeper (e.g. Redis lost its jobs). */
  sweepGraceMs: number;
}

export interface AppConfig {
  nodeEnv: NodeEnv;
  /** Address the api binds to. */
  host: string;
  port: number;
  databaseUrl: string;
  redisUrl: string;
  /** Redis Cluster seed nodes (host:port); when set, REDIS_URL only supplies credentials and TLS. */
  redisClusterNodes: { host: string; port: number }[] | undefined;
  queuePrefix: string;
  appKey: Buffer;
  /** The key before the last rotation (APP_KEY_PREVIOUS): still opens secrets, which are re-encrypted on use. */
  appKeyPrevious: Buffer | undefined;
  appKeyGenerated: boolean;
  extensions: string[] | undefined;
  logLevel: string;
  rateLimitPerMinute: number;
  /** Browser origins allowed to call the api: `*` (any) or exact origins; empty = none. */
  corsOrigins: '*' | string[];
  /** While Redis is down: let requests through unchecked (open) or answer 503 (closed). */
  rateLimitFail: 'open' | 'closed';
  /** A worker waits this long for in-flight deliveries on shutdown, then hands them back to the queue. */
  shutdownTimeoutMs: number;
  /** The worker's /metrics listener (0 = none). */
  metricsPort: number;
  /** When set, GET /metrics needs `Authorization: Bearer <token>`. */
  metricsToken: string | undefined;
  /** When set, the queue dashboard is mounted at /admin/queues behind this token. */
  adminToken: string | undefined;
  /** The api's address as its clients reach it (no trailing slash): absolute links in webhook payloads. */
  publicUrl: string;
  /** How long an Idempotency-Key and the answer stored with it are kept. */
  idempotencyTtlMs: number;
  /** The CSP `frame-ancestors` sources of the console: who may embed it (the company portal) in a frame. */
  portalFrameAncestors: string[];
  webhooks: WebhooksConfig;
}

/** A configuration problem, reported at boot as one line naming the variable. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`Invalid configuration: ${variable} ${problem}`);
  }
}

type Env = Record<string, string | undefined>;

function read(env: Env, name: string, fallback: string): string {
  const value = env[name];
  return value === undefined || value.trim() === '' ? fallback : value.trim();
}

function integer(
  env: Env,
  name: string,
  fallback: number,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const raw = read(env, name, String(fallback));
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max) {
    throw new ConfigError(name, `must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = read(env, name, String(fallback)).toLowerCase();
  if (['true', '1', 'yes'].includes(raw)) return true;
  if (['false', '0', 'no'].includes(raw)) return false;
  throw new ConfigError(name, `must be true or false, got "${raw}"`);
}

function url(env: Env, name: string, fallback: string, protocols: string[]): string {
  const raw = read(env, name, fallback);
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

function oneOf<T extends string>(env: Env, name: string, fallback: T, allowed: readonly T[]): T {
  const raw = read(env, name, fallback).toLowerCase() as T;
  if (!allowed.includes(raw)) throw new ConfigError(name, `must be ${allowed.join(' or ')}, got "${raw}"`);
  return raw;
}

function secret(env: Env, name: string): string | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  if (raw.length < 16) throw new ConfigError(name, 'must be at least 16 characters long');
  return raw;
}

function clusterNodes(env: Env): { host: string; port: number }[] | undefined {
  const raw = read(env, 'REDIS_CLUSTER_NODES', '');
  if (!raw) return undefined;
  return raw.split(',').map((entry) => {
    const match = /^\[?([^\]\s]+?)\]?:(\d{1,5})$/.exec(entry.trim());
    if (!match || Number(match[2]) > 65535) {
      throw new ConfigError(
        'REDIS_CLUSTER_NODES',
        `must be a comma list of host:port, got "${entry.trim()}"`,
      );
    }
    return { host: match[1], port: Number(match[2]) };
  });
}

/** A positive number of days, fractions allowed (a soak run keeps minutes). */
function days(env: Env, name: string, fallback: number): number {
  const raw = read(env, name, String(fallback));
  const value = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw) || !(value > 0)) {
    throw new ConfigError(name, `must be a positive number of days, got "${raw}"`);
  }
  return value;
}

function durations(env: Env, name: string, fallback: string): number[] {
  const raw = read(env, name, fallback);
  try {
    return raw.split(',').map(parseDuration);
  } catch (error) {
    throw new ConfigError(name, `must be a comma list of durations: ${(error as Error).message}`);
  }
}

/**
 * PORTAL_FRAME_ANCESTORS: the pages that may frame the console, as CSP `frame-ancestors` sources: `'self'`,
 * `'none'`, or origins (`https://app.example.com`, `https://*.example.com`). Default `'self'`.
 */
function frameAncestors(env: Env): string[] {
  const raw = read(env, 'PORTAL_FRAME_ANCESTORS', "'self'");
  const sources = raw.split(/[\s,]+/).filter(Boolean);
  for (const source of sources) {
    // Quoted keywords, or scheme://host[:port] where the host may start with one `*.` label.
    const ok =
      source === "'self'" ||
      source === "'none'" ||
      /^https?:\/\/(\*\.)?[A-Za-z0-9.-]+(:\d{1,5})?$/.test(source) ||
      /^https?:\/\/\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/.test(source);
    if (!ok)
      throw new ConfigError(
        'PORTAL_FRAME_ANCESTORS',
        `must be 'self', 'none' or a comma list of origins such as https://app.example.com, got "${source}"`,
      );
  }
  if (sources.includes("'none'") && sources.length > 1)
    throw new ConfigError('PORTAL_FRAME_ANCESTORS', "'none' cannot be combined with other sources");
  return sources;
}

/** `*` or a comma list of exact origins (`https://app.example.com`); any origin in development, none in production. */
function corsOrigins(env: Env, nodeEnv: NodeEnv): '*' | string[] {
  const raw = read(env, 'CORS_ORIGINS', nodeEnv === 'production' ? '' : '*');
  if (raw === '*') return '*';
  if (raw === '') return [];
  return raw.split(',').map((entry) => {
    const origin = entry.trim();
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    // A browser sends the bare origin, so anything else (a path, a trailing slash) would never match.
    if (!parsed || !['http:', 'https:'].includes(parsed.protocol) || parsed.origin !== origin) {
      throw new ConfigError(
        'CORS_ORIGINS',
        `must be * or a comma list of origins such as https://app.example.com, got "${origin}"`,
      );
    }
    return origin;
  });
}

function appKey(env: Env, nodeEnv: NodeEnv, databaseUrl: string): { key: Buffer; generated: boolean } {
  const raw = env.APP_KEY?.trim();
  if (!raw) {
    if (nodeEnv === 'production')
      throw new ConfigError('APP_KEY', 'is required in production (32 random bytes, base64)');
    // Stable per database so secrets encrypted in development stay readable across restarts.
    return {
      key: createHash('sha256').update(`wharf-development-key:${databaseUrl}`).digest(),
      generated: true,
    };
  }
  return { key: keyBytes('APP_KEY', raw), generated: false };
}

function keyBytes(name: string, raw: string): Buffer {
  const key = Buffer.from(raw.replace(/^base64:/, ''), 'base64');
  if (key.length < 32) throw new ConfigError(name, 'must be at least 32 bytes, base64-encoded');
  return key.subarray(0, 32);
}

function previousAppKey(env: Env): Buffer | undefined {
  const raw = env.APP_KEY_PREVIOUS?.trim();
  return raw ? keyBytes('APP_KEY_PREVIOUS', raw) : undefined;
}

/** Reads and validates the whole configuration; throws ConfigError on the first bad variable. */
export function loadConfig(env: Env = process.env): AppConfig {
  const nodeEnv = read(env, 'NODE_ENV', 'development') as NodeEnv;
  if (!['development', 'production', 'test'].includes(nodeEnv)) {
    throw new ConfigError('NODE_ENV', `must be development, production or test, got "${nodeEnv}"`);
  }
  const databaseUrl = url(env, 'DATABASE_URL', 'postgres://postgres@127.0.0.1:5432/wharf', [
    'postgres:',
    'postgresql:',
  ]);
  const queuePrefix = read(env, 'QUEUE_PREFIX', 'wharf');
  if (!/^[A-Za-z0-9:_{}.-]{1,64}$/.test(queuePrefix)) {
    throw new ConfigError(
      'QUEUE_PREFIX',
      `may hold only letters, digits and : _ { } . -, got "${queuePrefix}"`,
    );
  }
  const redisClusterNodes = clusterNodes(env);
  // BullMQ's scripts touch several keys of a queue at once, which a cluster allows only within one slot.
  if (redisClusterNodes && !/\{[^{}]+\}/.test(queuePrefix)) {
    throw new ConfigError(
      'QUEUE_PREFIX',
      `must contain a {hash-tag} (e.g. {wharf}) on a Redis Cluster, got "${queuePrefix}"`,
    );
  }
  const retrySchedule = durations(env, 'WEBHOOKS_RETRY_SCHEDULE', '5s,5m,30m,2h,5h,10h,10h');
  const key = appKey(env, nodeEnv, databaseUrl);
  const extensions = read(env, 'EXTENSIONS', '');
  const senders = read(env, 'WEBHOOKS_SENDER_ADDRESSES', '');
  const port = integer(env, 'PORT', 3000, 0, 65535);
  return {
    nodeEnv,
    host: read(env, 'HOST', '0.0.0.0'),
    port,
    databaseUrl,
    redisUrl: url(env, 'REDIS_URL', 'redis://127.0.0.1:6379', ['redis:', 'rediss:']),
    redisClusterNodes,
    queuePrefix,
    appKey: key.key,
    appKeyPrevious: previousAppKey(env),
    appKeyGenerated: key.generated,
    extensions: extensions
      ? extensions
          .split(',')
          .map((name) => name.trim())
          .filter(Boolean)
      : undefined,
    logLevel: read(env, 'LOG_LEVEL', nodeEnv === 'test' ? 'warn' : 'info'),
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 600, 1),
    corsOrigins: corsOrigins(env, nodeEnv),
    rateLimitFail: oneOf(env, 'RATE_LIMIT_FAIL', 'open', ['open', 'closed'] as const),
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', 30_000, 0, 3_600_000),
    metricsPort: integer(env, 'METRICS_PORT', 0, 0, 65535),
    metricsToken: secret(env, 'METRICS_TOKEN'),
    adminToken: secret(env, 'ADMIN_TOKEN'),
    publicUrl: url(env, 'PUBLIC_URL', `http://localhost:${port}`, ['http:', 'https:']).replace(/\/+$/, ''),
    idempotencyTtlMs: positiveDuration(env, 'IDEMPOTENCY_TTL', '24h'),
    portalFrameAncestors: frameAncestors(env),
    webhooks: {
      retrySchedule,
      timeoutMs: integer(env, 'WEBHOOKS_TIMEOUT_MS', 15000, 1, 600_000),
      allowPrivateTargets: boolean(env, 'WEBHOOKS_ALLOW_PRIVATE_TARGETS', nodeEnv !== 'production'),
      concurrency: integer(env, 'WEBHOOKS_CONCURRENCY', 50, 1, 1000),
      endpointConcurrency: integer(env, 'WEBHOOKS_ENDPOINT_CONCURRENCY', 10, 1, 100),
      logRetentionDays: days(env, 'WEBHOOKS_LOG_RETENTION_DAYS', 30),
      eventRetentionDays: days(env, 'WEBHOOKS_EVENT_RETENTION_DAYS', 30),
      partitionIntervalMs: partitionInterval(env),
      archiveDir: read(env, 'WEBHOOKS_ARCHIVE_DIR', '') || undefined,
      autoDisableAfterDays: integer(env, 'WEBHOOKS_AUTO_DISABLE_AFTER_DAYS', 5, 1),
      senderAddresses: senders ? senders.split(',').map((address) => address.trim()) : [],
      pollIntervalMs: durations(env, 'WEBHOOKS_POLL_INTERVAL', '1s')[0],
      sweepGraceMs: durations(env, 'WEBHOOKS_SWEEP_GRACE', '5s')[0],
    },
  };
}

function positiveDuration(env: Env, name: string, fallback: string): number {
  const [ms] = durations(env, name, fallback);
  if (!(ms > 0))
    throw new ConfigError(name, `must be a positive duration, got "${read(env, name, fallback)}"`);
  return ms;
}

/** WEBHOOKS_PARTITION_INTERVAL: whole seconds, at least one (partition names carry the second). */
export function partitionInterval(env: Env): number {
  const ms = durations(env, 'WEBHOOKS_PARTITION_INTERVAL', '1d')[0];
  if (ms < 1000 || ms % 1000 !== 0) {
    throw new ConfigError('WEBHOOKS_PARTITION_INTERVAL', `must be whole seconds, at least 1s, got ${ms} ms`);
  }
  return ms;
}

/** The URL with any password masked, safe to print. */
export function redactUrl(raw: string): string {
  try {
    const parsed = new URL(raw);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return raw;
  }
}
