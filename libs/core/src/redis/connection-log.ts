import { Logger } from '@nestjs/common';
import type { Cluster, Redis } from 'ioredis';
import { describeFailure } from '../common/outage';

const logger = new Logger('redis');
let connections = 0;

/**
 * Gives a Redis client the listeners every one of ours needs: without an `error` listener ioredis prints
 * each failed reconnection as a raw stack trace. The connection logs once that it was lost (its first
 * error, or closing unasked) and once that it is back; the failures in between are its reconnections.
 */
export function logConnection<T extends Redis | Cluster>(client: T, name: string): T {
  const connection = `${name}#${++connections}`;
  let up = false;
  let downSince: number | undefined;
  const lost = (reason: string) => {
    if (downSince !== undefined) return;
    downSince = Date.now();
    const msg = up
      ? `Redis connection ${connection} lost (${reason}); reconnecting`
      : `Redis connection ${connection} cannot connect (${reason}); retrying`;
    logger.warn({ msg, connection, redis: 'down' });
  };
  client.on('error', (error: unknown) => lost(describeFailure(error)));
  client.on('reconnecting', () => lost('connection closed'));
  client.on('ready', () => {
    up = true;
    if (downSince === undefined) return;
    const seconds = ((Date.now() - downSince) / 1000).toFixed(1);
    downSince = undefined;
    logger.log({ msg: `Redis connection ${connection} back after ${seconds} s`, connection, redis: 'up' });
  });
  return client;
}
