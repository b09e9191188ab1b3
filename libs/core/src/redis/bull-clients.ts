import { RedisConnection, createIORedisClient } from 'bullmq';
import { Redis } from 'ioredis';
import { logConnection } from './connection-log';

/**
 * Makes BullMQ open its connections (a queue's, a worker's and its blocking one) through logConnection,
 * like every other client of ours: BullMQ gives a client an `error` listener of its own, but passes the
 * errors on only to a Queue or Worker that listens, and logs nothing of a lost or regained connection.
 * Also closes them without a stray error (guardCloseWhileConnecting). BullMQ's hooks are process-wide;
 * the clients it makes are the same as without them.
 */
export function configureBullConnections(): void {
  RedisConnection.clientFactory ??= ({ url, ...options }) => {
    const name = options.connectionName ? 'queue-blocking' : 'queue';
    const client = url ? new Redis(url, options) : new Redis(options);
    return createIORedisClient(logConnection(client, name));
  };
  guardCloseWhileConnecting();
}

const GUARDED = Symbol('wharf:bull-close-guarded');

/**
 * A BullMQ connection closed while it is still starting (a process stopped just after it started) drops
 * its listeners, then its start fails with "Connection is closed" and is emitted as an `error` nobody
 * listens to, which ends the process (taskforcesh/bullmq#3546, open): a closed connection keeps a listener.
 */
function guardCloseWhileConnecting(): void {
  const prototype = RedisConnection.prototype as RedisConnection & { [GUARDED]?: true };
  if (prototype[GUARDED]) return;
  prototype[GUARDED] = true;
  const close = prototype.close;
  prototype.close = function (this: RedisConnection, force?: boolean) {
    const closed = close.call(this, force);
    // close() removes every listener before it settles; its failed start is emitted after.
    this.on('error', () => undefined);
    return closed;
  };
}
