import { Inject, Injectable, OnApplicationShutdown, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Cluster, Redis } from 'ioredis';
import { DataSource } from 'typeorm';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config';
import { createFailFastRedis } from '../redis/redis';
import type { ReplicaState } from '../database/read-replicas';
import { ReadReplicasHost } from '../database/read-replicas.module';
import { Dependency } from '../common/outage';
import { within } from '../common/within';

export type CheckState = 'up' | 'down';
/**
 * ok: everything is up; degraded: Redis is down, which the api serves without (its outbox is in
 * PostgreSQL; rate limiting then fails open), or a read replica is down or lagging (its reads go to the
 * primary); error: a service the api cannot serve without is down.
 */
export interface HealthReport {
  status: 'ok' | 'degraded' | 'error';
  /** `replicas` only with DATABASE_REPLICA_URLS: each replica's state, in that order, as last sampled. */
  checks: { database: CheckState; redis: CheckState; replicas?: ReplicaState[] };
}

const CHECK_TIMEOUT_MS = 1500;

@Injectable()
export class HealthService implements OnApplicationShutdown {
  private readonly redis: Redis | Cluster;
  /** RATE_LIMIT_FAIL=closed answers 503 to every request while Redis is down: the api needs it then. */
  private readonly needsRedis: boolean;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) config: AppConfig,
    @Optional() private readonly replicas?: ReadReplicasHost,
  ) {
    this.redis = createFailFastRedis(config, 'health');
    this.needsRedis = config.rateLimitFail === 'closed';
  }

  async check(): Promise<HealthReport> {
    const [database, redis] = await Promise.all([this.probe('database'), this.probe('redis')]);
    const serves = database === 'up' && (redis === 'up' || !this.needsRedis);
    const replicas = this.replicas?.replicas?.states().map((replica) => replica.state);
    const whole = redis === 'up' && (replicas ?? []).every((state) => state === 'up');
    const status = !serves ? 'error' : whole ? 'ok' : 'degraded';
    return { status, checks: replicas ? { database, redis, replicas } : { database, redis } };
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
