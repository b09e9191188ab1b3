import { DynamicModule, Module } from '@nestjs/common';
import { AppConfig, DatabaseModule, HostComposition, QueueModule, WharfConfigModule } from '@wharf/core';

/** The background process: consumes queues (webhook relay and delivery arrive with the pipeline). */
@Module({})
export class WorkerModule {
  static forRoot(config: AppConfig, host: HostComposition): DynamicModule {
    return {
      module: WorkerModule,
      imports: [
        WharfConfigModule.forRoot(config),
        DatabaseModule.forRoot(config.databaseUrl, host.manifests),
        QueueModule.forRoot(config),
      ],
    };
  }
}
