import { BullModule } from '@nestjs/bullmq';
import { DynamicModule, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { Cluster } from 'ioredis';
import { AppConfig } from '../config/config';
import { configureBullConnections } from './bull-clients';
import { queueConnection } from './redis';

const CLUSTER_CLIENT = Symbol('CLUSTER_CLIENT');

/** BullMQ closes the clients it made but not one it was given: the cluster client is ours to close. */
class ClusterClientCloser implements OnApplicationShutdown {
  constructor(@Inject(CLUSTER_CLIENT) private readonly client: Cluster | undefined) {}

  onApplicationShutdown(): void {
    this.client?.disconnect();
  }
}

/** The workers' BullMQ connection, keyed under QUEUE_PREFIX (the api has no queue: it writes events to PostgreSQL). */
@Module({})
export class QueueModule {
  static forRoot(config: AppConfig, role: 'producer' | 'consumer'): DynamicModule {
    configureBullConnections();
    const connection = queueConnection(config, role);
    return {
      module: QueueModule,
      global: true,
      imports: [BullModule.forRoot({ connection, prefix: config.queuePrefix })],
      providers: [
        { provide: CLUSTER_CLIENT, useValue: connection instanceof Cluster ? connection : undefined },
        ClusterClientCloser,
      ],
      exports: [BullModule],
    };
  }
}
