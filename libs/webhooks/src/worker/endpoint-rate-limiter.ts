import { randomUUID } from 'node:crypto';
import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, AppConfig, bullConnection } from '@wharf/core';
import { Redis } from 'ioredis';

/**
 * The window a limit of N per second is counted over. A tenth of a second longer than one second, so that
 * the few milliseconds between taking a send slot and the request reaching the receiver can never squeeze
 * N + 1 requests into one second there.
 */
export const RATE_WINDOW_MS = 1100;

/**
 * A sliding-window log per endpoint, in one atomic script on Redis's own clock (so every worker shares one
 * count and one time): takes a send slot and returns 0, or returns how many ms until one frees up.
 */
const TAKE_SLOT = `
local now = redis.call('TIME')
local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ms - window)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('ZADD', KEYS[1], ms, ARGV[3])
  redis.call('PEXPIRE', KEYS[1], window)
  return 0
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return math.max(1, tonumber(oldest[2]) + window - ms + 1)`;

/** Per-endpoint `rate_limit_per_second`, held across all worker processes. */
@Injectable()
export class EndpointRateLimiter implements OnApplicationShutdown {
  private redis?: Redis;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** 0 when the endpoint may be sent to now (the send is counted), else the ms to wait before asking again. */
  async take(endpoint: string, perSecond: number): Promise<number> {
    this.redis ??= new Redis(bullConnection(this.config.redisUrl));
    const key = `${this.config.queuePrefix}:webhook-rate:${endpoint}`;
    const wait = await this.redis.eval(TAKE_SLOT, 1, key, perSecond, RATE_WINDOW_MS, randomUUID());
    return Number(wait);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.redis?.quit().catch(() => undefined);
  }
}
