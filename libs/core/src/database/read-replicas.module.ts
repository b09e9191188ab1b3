import {
  DynamicModule,
  Global,
  Inject,
  Injectable,
  Module,
  OnApplicationShutdown,
  OnModuleInit,
} from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Counter, Gauge } from 'prom-client';
import { DataSource } from 'typeorm';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config';
import { Metrics } from '../metrics/metrics';
import { ReadReplicas } from './read-replicas';
import { poolOf } from './typeorm-pg';

/**
 * The api's replicas (DATABASE_REPLICA_URLS), sampled while it runs, and their metrics. Whatever reads on a
 * replica injects it (optionally: the worker and the CLI have none) and passes `replicas` to readQuery.
 */
@Injectable()
export class ReadReplicasHost implements OnModuleInit, OnApplicationShutdown {
  /** None without DATABASE_REPLICA_URLS. */
  readonly replicas?: ReadReplicas;

  constructor(
    @InjectDataSource() dataSource: DataSource,
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly metrics: Metrics,
  ) {
    if (!config.databaseReplicaUrls.length) return;
    this.replicas = new ReadReplicas(
      poolOf(dataSource),
      config.databaseUrl,
      config.databaseReplicaUrls,
      config.databaseReplicaMaxLagMs,
    );
    this.instrument(this.replicas);
  }

  /** A first sample before the api serves, so its first reads may already go to the replicas. */
  async onModuleInit(): Promise<void> {
    await this.replicas?.start();
  }

  private instrument(replicas: ReadReplicas): void {
    const registers = [this.metrics.registry];
    new Gauge({
      name: 'wharf_database_replica_lag_seconds',
      help: 'How far each replica is behind the primary, as last sampled (+Inf while it is down)',
      labelNames: ['replica'],
      registers,
      collect() {
        for (const { number, lagSeconds } of replicas.states()) this.set({ replica: number }, lagSeconds);
      },
    });
    new Gauge({
      name: 'wharf_database_replica_up',
      help: 'Whether reads may go to each replica: 1 up, 0 down or further behind than DATABASE_REPLICA_MAX_LAG',
      labelNames: ['replica'],
      registers,
      collect() {
        for (const { number, state } of replicas.states())
          this.set({ replica: number }, state === 'up' ? 1 : 0);
      },
    });
    const reads = new Counter({
      name: 'wharf_database_reads_total',
      help: 'Reads that could go to a replica, by the server that answered them (primary, replica)',
      labelNames: ['server'],
      registers,
    });
    const primary = reads.labels('primary');
    const replica = reads.labels('replica');
    replicas.onRead = (server) => (server === 'replica' ? replica : primary).inc();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.replicas?.stop();
  }
}

/** The api's reads on replicas (imported by the api alone: the worker never connects to one). */
@Global()
@Module({})
export class ReadReplicasModule {
  static forRoot(): DynamicModule {
    return { module: ReadReplicasModule, providers: [ReadReplicasHost], exports: [ReadReplicasHost] };
  }
}
