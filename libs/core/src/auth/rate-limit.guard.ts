import {
  CanActivate,
  ExecutionContext,
  Inject,
  Injectable,
  Logger,
  OnApplicationShutdown,
} from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Redis } from 'ioredis';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { ApiError } from '../http/api-error';
import { createFailFastRedis } from '../redis/redis';
import { ScopedRequest } from './api-key.guard';

const WINDOW_MS = 60_000;

/** Fixed one-minute window per API key, counted in Redis so every api process shares it. */
@Injectable()
export class RateLimitGuard implements CanActivate, OnApplicationShutdown {
  private readonly redis: Redis;
  private readonly logger = new Logger('rate-limit');

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.redis = createFailFastRedis(config.redisUrl);
    this.redis.on('error', () => undefined);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<ScopedRequest>();
    const apiKey = request.wharfScope?.apiKeyUuid;
    if (!apiKey) return true;
    const limit = this.config.rateLimitPerMinute;
    const now = Date.now();
    const window = Math.floor(now / WINDOW_MS);
    const key = `${this.config.queuePrefix}:ratelimit:${apiKey}:${window}`;
    let count: number;
    try {
      const results = await this.redis.multi().set(key, 0, 'PX', WINDOW_MS, 'NX').incr(key).exec();
      count = Number(results?.[1]?.[1]);
    } catch (error) {
      // Fail open: an unavailable Redis must not take the whole API down.
      this.logger.warn(`rate limit not checked: ${(error as Error).message}`);
      return true;
    }
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    void reply.header('x-ratelimit-limit', limit).header('x-ratelimit-remaining', Math.max(0, limit - count));
    if (count > limit) {
      const retryAfter = String(Math.ceil(((window + 1) * WINDOW_MS - now) / 1000));
      const error = ApiError.of(
        429,
        `Rate limit of ${limit} requests per minute exceeded; retry in ${retryAfter} s.`,
      );
      throw new ApiError(429, error.errors, { 'retry-after': retryAfter });
    }
    return true;
  }

  onApplicationShutdown(): void {
    this.redis.disconnect();
  }
}
