import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Cluster, Redis } from 'ioredis';
import { DataSource } from 'typeorm';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config';
import { createFailFastRedis } from '../redis/redis';
import { Dependency } from './outage';

export type CheckState = 'up' | 'down';
export interface HealthReport {
  status: 'ok' | 'error';
  checks: { database: CheckState; redis: CheckState };
}

const CHECK_TIMEOUT_MS = 1500;

function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error('timeout')), ms).unref()),
  ]);
}

@Injectable()
export class HealthService implements OnApplicationShutdown {
  private readonly redis: Redis | Cluster;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.redis = createFailFastRedis(config, 'health');
  }

  async check(): Promise<HealthReport> {
    const [database, redis] = await Promise.all([this.probe('database'), this.probe('redis')]);
    return { status: database === 'up' && redis === 'up' ? 'ok' : 'error', checks: { database, redis } };
  }

  async probe(dependency: Dependency): Promise<CheckState> {
    try {
      await within(
        dependency === 'database' ? this.dataSource.query('SELECT 1') : this.redis.ping(),
        CHECK_TIMEOUT_MS,
      );
      return 'up';
    } catch {
      return 'down';
    }
  }

  onApplicationShutdown(): void {
    this.redis.disconnect();
  }
}
