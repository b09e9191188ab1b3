import { BullModule } from '@nestjs/bullmq';
import { DynamicModule, Module } from '@nestjs/common';
import { AppConfig } from '../config/config';
import { bullConnection } from './redis';

/** The BullMQ connection shared by producers (api) and consumers (worker), keyed under QUEUE_PREFIX. */
@Module({})
export class QueueModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: QueueModule,
      global: true,
      imports: [
        BullModule.forRoot({ connection: bullConnection(config.redisUrl), prefix: config.queuePrefix }),
      ],
      exports: [BullModule],
    };
  }
}
