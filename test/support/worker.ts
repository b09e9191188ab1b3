import { INestApplicationContext } from '@nestjs/common';
import { createWorker } from '@wharf/worker';
import { AppConfig } from '@wharf/core';

/** Runs the real worker (relay, sweeper, delivery processor) in this process against the suite's config. */
export async function startWorker(config: AppConfig): Promise<INestApplicationContext> {
  return createWorker(config);
}
