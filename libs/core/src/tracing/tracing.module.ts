import { Injectable, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { stopTracing } from './tracing';

/**
 * Exports the spans a process still holds as it shuts down. Nest runs every shutdown hook after the
 * process's work has drained (an api's requests answered, a worker's deliveries recorded), so their spans
 * have ended by then. A collector that cannot be reached loses them, and the shutdown goes on.
 */
@Injectable()
class TracingShutdown implements OnApplicationShutdown {
  async onApplicationShutdown(): Promise<void> {
    await stopTracing().catch((error: Error) =>
      new Logger('tracing').warn(`spans not exported at shutdown: ${error.message}`),
    );
  }
}

/** Imported by the api and the worker: see TracingShutdown. Without tracing on, it does nothing. */
@Module({ providers: [TracingShutdown] })
export class TracingModule {}
