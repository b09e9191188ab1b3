import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppConfig, PinoNestLogger, createLogger } from '@wharf/core';
import { composeWharf } from '@wharf/webhooks';
import { WorkerModule } from './worker.module';

/** A worker is an application context (no HTTP); shutdown hooks close BullMQ workers, draining in-flight jobs. */
export async function createWorker(config: AppConfig): Promise<INestApplicationContext> {
  const host = composeWharf(config);
  const logger = createLogger('worker', config.logLevel, config.nodeEnv === 'development');
  const app = await NestFactory.createApplicationContext(WorkerModule.forRoot(config, host), {
    logger: new PinoNestLogger(logger),
  });
  app.enableShutdownHooks();
  return app;
}
