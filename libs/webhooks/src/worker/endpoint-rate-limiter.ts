import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, AppConfig, bullConnection } from '@wharf/core';
import { Redis } from 'ioredis';

/**
 * A limit of N per second spaces sends RATE_WINDOW_MS / N apart: a tenth of a second longer than one
 * second, so that the few milliseconds between taking a send slot and the request reaching the receiver
 * cannot squeeze N + 1 requests into one second there.
 */
export const RATE_WINDOW_MS = 1100;

/**
 * GCRA without bursts, in one atomic script on Redis's own clock (so every worker shares one schedule):
 * each send takes the next slot, `interval` ms after the previous one. Even spacing rather than a window
 * that lets N go at once: a worker stalled between taking a slot and sending can then bunch only the few
 * sends it delayed, never a whole window's. Returns 0 (slot taken) or the ms until the next slot.
 */
const TAKE_SLOT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
local interval = tonumber(ARGV[1])
local next = tonumber(redis.call('GET', KEYS[1]) or '0')
if next > now then return math.max(1, math.ceil(next - now)) end
redis.call('SET', KEYS[1], string.format('%.3f', now + interval), 'PX', math.ceil(interval) + 1000)
return 0`;

/** Per-endpoint `rate_limit_per_second`, held across all worker processes. */
@Injectable()
export class EndpointRateLimiter implements OnApplicationShutdown {
  private redis?: Redis;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** 0 when the endpoint may be sent to now (the send is counted), else the ms to wait before asking again. */
  async take(endpoint: string, perSecond: number): Promise<number> {
    this.redis ??= new Redis(bullConnection(this.config.redisUrl));
    const key = `${this.config.queuePrefix}:webhook-rate:${endpoint}`;
    const wait = await this.redis.eval(TAKE_SLOT, 1, key, RATE_WINDOW_MS / perSecond);
    return Number(wait);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.redis?.quit().catch(() => undefined);
  }
}
