import { Cluster, ClusterNode, Redis, RedisOptions } from 'ioredis';
import type { AppConfig } from '../config/config';
import { logConnection } from './connection-log';

/** Where Redis is: REDIS_URL, or a Redis Cluster seeded by REDIS_CLUSTER_NODES (REDIS_URL then gives credentials/TLS). */
export type RedisTarget = Pick<AppConfig, 'redisUrl' | 'redisClusterNodes'>;

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

function cluster(target: RedisTarget, options: RedisOptions, name: string): Cluster {
  // A cluster has no databases: the node options keep only credentials, TLS and timeouts.
  const { host: _host, port: _port, db: _db, ...nodeOptions } = options;
  const client = new Cluster(target.redisClusterNodes as ClusterNode[], {
    redisOptions: nodeOptions,
    enableOfflineQueue: true,
    clusterRetryStrategy: (times) => Math.min(times * 200, 2000),
  });
  return logConnection(client, name);
}

/** One node's client, named in its connection's log lines (every client of ours is made here or by cluster()). */
export function createNodeRedis(options: RedisOptions, name: string): Redis {
  return logConnection(new Redis(options), name);
}

/**
 * The BullMQ connection: options for one node (BullMQ makes its own clients from them), or a Cluster
 * client, which BullMQ takes only as an instance. A producer (the api's queue dashboard) fails fast while
 * Redis is away, so a page answers instead of waiting for Redis; consumers (workers) wait for it to come back.
 */
export function queueConnection(target: RedisTarget, role: 'producer' | 'consumer'): RedisOptions | Cluster {
  const options: RedisOptions = {
    ...bullConnection(target.redisUrl),
    // A command waits for one reconnection attempt, then fails (the offline queue stays on: BullMQ's
    // close() needs it to quit cleanly while Redis is away).
    ...(role === 'producer' ? { maxRetriesPerRequest: 1 } : {}),
  };
  return target.redisClusterNodes ? cluster(target, options, 'queue') : options;
}

/**
 * A client that fails fast while Redis is away (health checks, rate limiting): commands wait at most
 * `commandTimeout` ms (e.g. while the first connection is still being made) instead of queueing forever.
 */
export function createFailFastRedis(
  target: RedisTarget,
  name: string,
  connectTimeout = 2000,
): Redis | Cluster {
  const options: RedisOptions = {
    ...bullConnection(target.redisUrl),
    maxRetriesPerRequest: 0,
    enableOfflineQueue: true,
    commandTimeout: connectTimeout,
    connectTimeout,
    retryStrategy: (times) => Math.min(times * 200, 2000),
  };
  return target.redisClusterNodes ? cluster(target, options, name) : createNodeRedis(options, name);
}

/** A plain client (tests, tools): the cluster when REDIS_CLUSTER_NODES is set. */
export function createRedis(target: RedisTarget, name = 'tool'): Redis | Cluster {
  const options = { ...bullConnection(target.redisUrl), maxRetriesPerRequest: 3 };
  return target.redisClusterNodes ? cluster(target, options, name) : createNodeRedis(options, name);
}

/** Deletes every key under `prefix:` (a test run's or benchmark's own queues), without blocking Redis. */
export async function deleteKeysWithPrefix(target: RedisTarget | string, prefix: string): Promise<void> {
  const client = createRedis(
    typeof target === 'string' ? { redisUrl: target, redisClusterNodes: undefined } : target,
  );
  try {
    const nodes = client instanceof Cluster ? await masters(client) : [client];
    for (const node of nodes) {
      let cursor = '0';
      do {
        const [next, keys] = await node.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
        // One key per DEL (a cluster node refuses a DEL across slots), pipelined to the node holding them.
        if (keys.length) await keys.reduce((pipeline, key) => pipeline.del(key), node.pipeline()).exec();
        cursor = next;
      } while (cursor !== '0');
    }
  } finally {
    client.disconnect();
  }
}

async function masters(client: Cluster): Promise<Redis[]> {
  if (client.status !== 'ready') await new Promise((resolve) => client.once('ready', resolve));
  return client.nodes('master');
}
