// First: what it defers must be in place before the imports below require it.
import './boot.preload';
import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { loadConfig, preflight, runMain, startTracing } from '@wharf/core';
import { createWorker } from './worker';

runMain(async () => {
  const config = loadConfig();
  await preflight(config);
  await startTracing('wharf-worker');
  await createWorker(config);
  new Logger('worker').log(`Wharf worker ready (queue prefix "${config.queuePrefix}")`);
});
