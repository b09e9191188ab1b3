import { RedisConnection, createIORedisClient } from 'bullmq';
import { Redis } from 'ioredis';
import { logConnection } from './connection-log';

/**
 * Makes BullMQ open its connections (a queue's, a worker's and its blocking one) through logConnection,
 * like every other client of ours: BullMQ gives a client an `error` listener of its own, but passes the
 * errors on only to a Queue or Worker that listens, and logs nothing of a lost or regained connection.
 * BullMQ's hook is process-wide; the clients it makes are the same as without it.
 */
export function logBullConnections(): void {
  RedisConnection.clientFactory ??= ({ url, ...options }) => {
    const name = options.connectionName ? 'queue-blocking' : 'queue';
    const client = url ? new Redis(url, options) : new Redis(options);
    return createIORedisClient(logConnection(client, name));
  };
}
