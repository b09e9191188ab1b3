import { Client } from 'pg';
import { Cluster, Redis } from 'ioredis';
import { redactUrl } from '../config/config';
import { RedisTarget, bullConnection } from '../redis/redis';

const HOW_TO_START = 'start it with `docker compose up -d postgres redis` or run a local server';

/** Thrown when a backing service cannot be reached at start; its message is the one line printed. */
export class ServiceUnavailableAtBoot extends Error {}

function reason(error: unknown): string {
  const err = error as { code?: string; message?: string };
  return err.code ?? err.message ?? String(error);
}

export async function checkPostgres(databaseUrl: string, database = true): Promise<void> {
  const url = new URL(databaseUrl);
  if (!database) url.pathname = '/postgres';
  const client = new Client({ connectionString: url.toString(), connectionTimeoutMillis: 3000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (error) {
    if ((error as { code?: string }).code === '3D000') {
      throw new ServiceUnavailableAtBoot(
        `The database of ${redactUrl(databaseUrl)} does not exist: run \`npm run migrate\` (it creates and migrates it).`,
      );
    }
    throw new ServiceUnavailableAtBoot(
      `Cannot reach PostgreSQL at ${redactUrl(databaseUrl)} (${reason(error)}): ${HOW_TO_START}.`,
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}

export async function checkRedis(target: RedisTarget): Promise<void> {
  const options = {
    ...bullConnection(target.redisUrl),
    lazyConnect: true,
    connectTimeout: 3000,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  };
  const { host: _host, port: _port, db: _db, ...nodeOptions } = options;
  const redis = target.redisClusterNodes
    ? new Cluster(target.redisClusterNodes, {
        lazyConnect: true,
        redisOptions: nodeOptions,
        clusterRetryStrategy: () => null,
      })
    : new Redis(options);
  const where = target.redisClusterNodes
    ? `the Redis Cluster at ${target.redisClusterNodes.map((n) => `${n.host}:${n.port}`).join(',')}`
    : `Redis at ${redactUrl(target.redisUrl)}`;
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    throw new ServiceUnavailableAtBoot(`Cannot reach ${where} (${reason(error)}): ${HOW_TO_START}.`);
  } finally {
    redis.disconnect();
  }
}
