import { DynamicModule, Module } from '@nestjs/common';
import {
  AppConfig,
  DatabaseModule,
  HostComposition,
  PermissionsModule,
  MetricsModule,
  TracingModule,
  OutageModule,
  WharfConfigModule,
} from '@wharf/core';
import { QueueModule } from '@wharf/core/redis/queue.module';
import { WebhooksExtension } from '@wharf/webhooks';
import { WORKER_DATABASE_SETTINGS, WebhooksWorkerModule } from '@wharf/webhooks/worker';

/** The background process: the webhook outbox relay, sweeper and delivery processor. */
@Module({})
export class WorkerModule {
  static forRoot(config: AppConfig, host: HostComposition): DynamicModule {
    return {
      module: WorkerModule,
      imports: [
        WharfConfigModule.forRoot(config),
        DatabaseModule.forRoot(config.databaseUrl, host.manifests, WORKER_DATABASE_SETTINGS),
        QueueModule.forRoot(config, 'consumer'),
        OutageModule,
        PermissionsModule.forRoot(host.permissions),
        MetricsModule,
        TracingModule,
        WebhooksExtension,
        WebhooksWorkerModule,
      ],
    };
  }
}
