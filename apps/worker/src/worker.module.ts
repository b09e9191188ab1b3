import { DynamicModule, Module } from '@nestjs/common';
import {
  AppConfig,
  DatabaseModule,
  HostComposition,
  MetricsModule,
  OutageModule,
  QueueModule,
  WharfConfigModule,
} from '@wharf/core';
import { WebhooksExtension } from '@wharf/webhooks';
import { WebhooksWorkerModule } from '@wharf/webhooks/worker';

/** The background process: the webhook outbox relay, sweeper and delivery processor. */
@Module({})
export class WorkerModule {
  static forRoot(config: AppConfig, host: HostComposition): DynamicModule {
    return {
      module: WorkerModule,
      imports: [
        WharfConfigModule.forRoot(config),
        // The worker runs a few prepared statements thousands of times, written for their generic plans. Left
        // to choose, PostgreSQL re-planned the attempt recorder's (a dozen CTEs) on every execution in some
        // runs and not in others, which swung its CPU per delivery by about a third between runs.
        DatabaseModule.forRoot(config.databaseUrl, host.manifests, {
          plan_cache_mode: 'force_generic_plan',
        }),
        QueueModule.forRoot(config, 'consumer'),
        OutageModule,
        MetricsModule,
        WebhooksExtension,
        WebhooksWorkerModule,
      ],
    };
  }
}
