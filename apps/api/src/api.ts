import { Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { DestinationStream } from 'pino';
import {
  AppConfig,
  PinoNestLogger,
  StageTrace,
  checkSchema,
  createFastifyAdapter,
  createLogger,
  serveRequests,
  setupOpenApi,
} from '@wharf/core';
import { composeWharf, mountQueueDashboard } from '@wharf/webhooks';
import { ApiModule } from './api.module';
import { serveConsole } from './console';

export interface ApiOptions {
  /** Extension modules to load instead of those named by EXTENSIONS (tests). */
  extensions?: Type[];
  /** Where the JSON logs go instead of stdout (tests read them). */
  logDestination?: DestinationStream;
  /** Told of each stage of the request pipeline as it starts (tests see the order a request takes). */
  trace?: StageTrace;
}

/** Builds the api application (not yet listening), shared by main.ts, tests and benchmarks. */
export async function createApi(
  config: AppConfig,
  options: ApiOptions = {},
): Promise<NestFastifyApplication> {
  const host = composeWharf(config, options.extensions);
  await checkSchema(config.databaseUrl, host.manifests);
  const logger = createLogger(
    'api',
    config.logLevel,
    config.nodeEnv === 'development' && !options.logDestination,
    options.logDestination,
  );
  const app = await NestFactory.create<NestFastifyApplication>(
    ApiModule.forRoot(config, host),
    createFastifyAdapter(logger),
    // serveRequests registers the JSON body parser (depth and string checks included).
    { logger: new PinoNestLogger(logger), bufferLogs: false, bodyParser: false },
  );
  // First: the request pipeline (docs/request.md) must see every route.
  await serveRequests(app, config, options.trace);
  setupOpenApi(app);
  serveConsole(app, config);
  await mountQueueDashboard(app, config);
  app.enableShutdownHooks();
  return app;
}
