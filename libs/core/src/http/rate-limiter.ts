import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Cluster, Redis } from 'ioredis';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { OutageMonitor } from '../health/outage-monitor';
import { ApiError } from '../common/api-error';
import { unavailableError } from '../common/error-response';
import { createFailFastRedis } from '../redis/redis';

const WINDOW_MS = 60_000;
const SYNC_EVERY_MS = 100;
/** Past this share of the limit every request is counted in Redis directly, so the limit stays exact. */
const EXACT_FROM = 0.8;

interface Counter {
  window: number;
  /** The window's total in Redis when last seen (all api processes). */
  shared: number;
  /** Requests counted here and not yet added to Redis. */
  unsynced: number;
}

/**
 * Fixed one-minute window per API key, shared by every api process through Redis. Far from the limit,
 * requests are counted in memory and added to Redis in batches (no Redis round trip on the hot path);
 * a key's first request in a window and every request near the limit go to Redis at once.
 */
@Injectable()
export class RateLimiter implements OnApplicationShutdown {
  private readonly redis: Redis | Cluster;
  private readonly counters = new Map<string, Counter>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly outages: OutageMonitor,
  ) {
    this.redis = createFailFastRedis(config, 'rate-limiter');
    this.timer = setInterval(() => void this.sync(), SYNC_EVERY_MS);
    this.timer.unref();
  }

  private key(apiKey: string, window: number): string {
    return `${this.config.queuePrefix}:ratelimit:${apiKey}:${window}`;
  }

  /** Adds `count` to the window in Redis and returns its new total. */
  private async add(apiKey: string, window: number, count: number): Promise<number> {
    const key = this.key(apiKey, window);
    const results = await this.redis.multi().set(key, 0, 'PX', WINDOW_MS, 'NX').incrby(key, count).exec();
    return Number(results?.[1]?.[1]);
  }

  private async sync(): Promise<void> {
    const window = Math.floor(Date.now() / WINDOW_MS);
    for (const [apiKey, counter] of this.counters) {
      if (counter.window !== window) {
        this.counters.delete(apiKey);
        continue;
      }
      if (!counter.unsynced) continue;
      const count = counter.unsynced;
      counter.unsynced = 0;
      try {
        counter.shared = await this.add(apiKey, window, count);
      } catch (error) {
        counter.unsynced += count;
        this.outages.failed('redis', error);
      }
    }
  }

  /**
   * Counts a request of `apiKey`; throws 429 past the limit (503 while Redis is down, when closed). Far from
   * the limit it answers synchronously: the request goes on without waiting for a promise.
   */
  count(apiKey: string, reply: FastifyReply): undefined | Promise<undefined> {
    // Closed: while Redis is known to be down even the in-memory fast path refuses, as nothing is shared.
    if (this.config.rateLimitFail === 'closed' && this.outages.isDown('redis'))
      throw unavailableError('redis');
    const now = Date.now();
    const window = Math.floor(now / WINDOW_MS);
    const counter = this.counters.get(apiKey);
    const limit = this.config.rateLimitPerMinute;
    if (counter && counter.window === window && counter.shared + counter.unsynced + 1 < limit * EXACT_FROM) {
      counter.unsynced++;
      return this.answer(reply, counter.shared + counter.unsynced, now);
    }
    return this.countInRedis(apiKey, counter, now, reply);
  }

  private async countInRedis(
    apiKey: string,
    counter: Counter | undefined,
    now: number,
    reply: FastifyReply,
  ): Promise<undefined> {
    const window = Math.floor(now / WINDOW_MS);
    let count: number;
    try {
      const pending = counter?.window === window ? counter.unsynced : 0;
      count = await this.add(apiKey, window, pending + 1);
      this.counters.set(apiKey, { window, shared: count, unsynced: 0 });
    } catch (error) {
      // Logged once per outage by the monitor. RATE_LIMIT_FAIL=open (default) keeps the API up while
      // Redis is away, unmetered; closed answers 503 instead.
      this.outages.failed('redis', error);
      if (this.config.rateLimitFail === 'open') return undefined;
      throw unavailableError('redis');
    }
    return this.answer(reply, count, now);
  }

  /** The rate-limit headers of a request counted `count`th in its window, and 429 past the limit. */
  private answer(reply: FastifyReply, count: number, now: number): undefined {
    const limit = this.config.rateLimitPerMinute;
    void reply.header('x-ratelimit-limit', limit).header('x-ratelimit-remaining', Math.max(0, limit - count));
    if (count > limit) {
      const retryAfter = Math.ceil(((Math.floor(now / WINDOW_MS) + 1) * WINDOW_MS - now) / 1000);
      throw ApiError.retryAfter(
        429,
        retryAfter,
        `Rate limit of ${limit} requests per minute exceeded; retry in ${retryAfter} s.`,
      );
    }
    return undefined;
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.sync();
    this.redis.disconnect();
  }
}
