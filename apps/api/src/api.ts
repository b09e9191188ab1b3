import { Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { DestinationStream } from 'pino';
import {
  AppConfig,
  PinoNestLogger,
  configureAccess,
  configureCors,
  checkSchema,
  configureHttp,
  configureHttpConventions,
  configureIdempotency,
  createFastifyAdapter,
  createLogger,
  instrumentHttp,
  logRequests,
  serveResourceRoutes,
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
    // configureHttp registers the JSON body parser (depth and string checks included).
    { logger: new PinoNestLogger(logger), bufferLogs: false, bodyParser: false },
  );
  // First: its route table must see every route, and its OPTIONS hook runs before CORS's.
  configureHttpConventions(app);
  await configureCors(app, config);
  configureHttp(app);
  configureAccess(app);
  configureIdempotency(app, config.idempotencyTtlMs);
  serveResourceRoutes(app);
  instrumentHttp(app, config);
  logRequests(app, config);
  setupOpenApi(app);
  serveConsole(app, config);
  await mountQueueDashboard(app, config);
  app.enableShutdownHooks();
  return app;
}
