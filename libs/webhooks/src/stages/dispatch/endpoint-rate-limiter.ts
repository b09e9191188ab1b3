import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, AppConfig, bullConnection, createNodeRedis } from '@wharf/core';
import type { Redis } from 'ioredis';
import { RATE_SLOT_GRACE_MS, RATE_WINDOW_MS } from '../../tuning';

/**
 * GCRA without bursts, in one atomic script on Redis's own clock (so every worker shares one schedule).
 * Each caller reserves the next free slot, `interval` ms after the previous one, and learns how long until
 * it is due; a caller that comes back with its reservation (ARGV[2], on the same clock) keeps it if it is
 * not yet due or at most `grace` ms late. Reserving rather than answering "try again in `interval` ms",
 * which would send every waiting job back at the same moment to race for one slot. Returns { slot, now }: the reserved slot and Redis's clock, in ms.
 */
const RESERVE_SLOT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local interval = tonumber(ARGV[1])
local held = tonumber(ARGV[2])
local grace = tonumber(ARGV[3])
if held > 0 and now <= held + grace then return { held, now } end
local slot = math.max(tonumber(redis.call('GET', KEYS[1]) or '0'), now)
local nextSlot = slot + interval
redis.call('SET', KEYS[1], nextSlot, 'PX', nextSlot - now + 1000)
return { slot, now }`;

export interface RateSlot {
  /** The reserved slot on Redis's clock (ms): hand it back to keep the reservation. */
  slot: number;
  /** Milliseconds until the slot is due; 0 when the job may send now. */
  waitMs: number;
}

/** Per-endpoint `rate_limit_per_second`, held across all worker processes. */
@Injectable()
export class EndpointRateLimiter implements OnApplicationShutdown {
  private redis?: Redis;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** Reserves a send slot for the endpoint, or confirms `held` when it is still good. */
  async reserve(endpoint: string, perSecond: number, held = 0): Promise<RateSlot> {
    this.redis ??= createNodeRedis(bullConnection(this.config.redisUrl), 'endpoint-rate-limiter');
    const key = `${this.config.queuePrefix}:webhook-rate:${endpoint}`;
    const interval = Math.ceil(RATE_WINDOW_MS / perSecond);
    const [slot, now] = (await this.redis.eval(RESERVE_SLOT, 1, key, interval, held, RATE_SLOT_GRACE_MS)) as [
      number,
      number,
    ];
    return { slot, waitMs: Math.max(0, slot - now) };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.redis?.quit().catch(() => undefined);
  }
}
