import { createHash } from 'node:crypto';
import type { AppConfig, KernelConfig, NodeEnv } from './app-config';
import { readConfigSections } from './config-sections';
import { ConfigError, Env, integer, oneOf, positiveDuration, text as read, secret, url } from './env-readers';

export type { AppConfig, KernelConfig, NodeEnv } from './app-config';
export { ConfigError } from './env-readers';

// The kernel's settings, read from the environment (README's configuration table names each variable).

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

/** DATABASE_REPLICA_URLS: a comma list of postgres:// URLs of streaming replicas (none by default). */
function replicaUrls(env: Env): string[] {
  const entries = read(env, 'DATABASE_REPLICA_URLS', '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (const entry of entries) {
    let protocol: string | undefined;
    try {
      protocol = new URL(entry).protocol;
    } catch {
      protocol = undefined;
    }
    if (protocol !== 'postgres:' && protocol !== 'postgresql:')
      throw new ConfigError(
        'DATABASE_REPLICA_URLS',
        `must be a comma list of postgres:// URLs, got "${redactUrl(entry)}"`,
      );
  }
  return entries;
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

function nodeEnvOf(env: Env): NodeEnv {
  const nodeEnv = read(env, 'NODE_ENV', 'development') as NodeEnv;
  if (!['development', 'production', 'test'].includes(nodeEnv)) {
    throw new ConfigError('NODE_ENV', `must be development, production or test, got "${nodeEnv}"`);
  }
  return nodeEnv;
}

/** QUEUE_PREFIX, and the Redis Cluster it lives on (if any). */
function queueOf(env: Env): Pick<KernelConfig, 'queuePrefix' | 'redisClusterNodes'> {
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
  return { queuePrefix, redisClusterNodes };
}

function kernelConfig(env: Env): KernelConfig {
  const nodeEnv = nodeEnvOf(env);
  const databaseUrl = url(env, 'DATABASE_URL', 'postgres://postgres@127.0.0.1:5432/wharf', [
    'postgres:',
    'postgresql:',
  ]);
  const queue = queueOf(env);
  const key = appKey(env, nodeEnv, databaseUrl);
  const extensions = read(env, 'EXTENSIONS', '');
  const port = integer(env, 'PORT', 3000, 0, 65535);
  return {
    nodeEnv,
    host: read(env, 'HOST', '0.0.0.0'),
    port,
    databaseUrl,
    databaseReplicaUrls: replicaUrls(env),
    databaseReplicaMaxLagMs: positiveDuration(env, 'DATABASE_REPLICA_MAX_LAG', '5s'),
    redisUrl: url(env, 'REDIS_URL', 'redis://127.0.0.1:6379', ['redis:', 'rediss:']),
    ...queue,
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
  };
}

/**
 * Reads and validates the whole configuration: the kernel's settings, then the section of every library
 * loaded (see registerConfigSection). Throws ConfigError on the first bad variable.
 */
export function loadConfig(env: Env = process.env): AppConfig {
  const kernel = kernelConfig(env);
  return { ...kernel, ...readConfigSections(env, kernel) } as AppConfig;
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
