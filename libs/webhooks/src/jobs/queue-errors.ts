import { Logger } from '@nestjs/common';
import { OutageMonitor, unavailableDependency } from '@wharf/core';

interface ErrorEmitter {
  on(event: 'error', listener: (error: Error) => void): unknown;
}

const logger = new Logger('queue');

/**
 * Listens to a BullMQ Queue's or Worker's errors: without a listener BullMQ prints the others raw on
 * stderr. Their connection's errors are a Redis outage, which the outage monitor logs once (each
 * connection logs its own loss and return, see logConnection); `expected` takes those that are no
 * fault (true: handled), and the rest are logged as errors.
 */
export function reportQueueErrors(
  emitter: ErrorEmitter,
  what: string,
  outages: OutageMonitor,
  expected: (error: Error) => boolean = () => false,
): void {
  emitter.on('error', (error) => {
    if (unavailableDependency(error)) outages.failed('redis', error);
    else if (!expected(error)) logger.error(`${what}: ${error.message}`);
  });
}
