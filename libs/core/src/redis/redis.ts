import { Redis, RedisOptions } from 'ioredis';

/** ioredis options for BullMQ from REDIS_URL (BullMQ workers need maxRetriesPerRequest: null). */
export function bullConnection(redisUrl: string): RedisOptions {
  const url = new URL(redisUrl);
  return {
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: Number(url.port || 6379),
    username: url.username ? decodeURIComponent(url.username) : undefined,
    password: url.password ? decodeURIComponent(url.password) : undefined,
    db: url.pathname.length > 1 ? Number(url.pathname.slice(1)) : 0,
    tls: url.protocol === 'rediss:' ? {} : undefined,
    maxRetriesPerRequest: null,
  };
}

/**
 * A client that fails fast while Redis is away (health checks, rate limiting): commands wait at most
 * `commandTimeout` ms (e.g. while the first connection is still being made) instead of queueing forever.
 */
export function createFailFastRedis(redisUrl: string, connectTimeout = 2000): Redis {
  return new Redis({
    ...bullConnection(redisUrl),
    maxRetriesPerRequest: 0,
    enableOfflineQueue: true,
    commandTimeout: connectTimeout,
    connectTimeout,
    retryStrategy: (times) => Math.min(times * 200, 2000),
  });
}

/** Deletes every key under `prefix:` (a test run's or benchmark's own queues), without blocking Redis. */
export async function deleteKeysWithPrefix(redisUrl: string, prefix: string): Promise<void> {
  const redis = new Redis(redisUrl);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      if (keys.length) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
