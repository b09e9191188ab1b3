import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { loadConfig, preflight, runMain } from '@wharf/core';
import { createWorker } from './worker';

runMain(async () => {
  const config = loadConfig();
  await preflight(config);
  await createWorker(config);
  new Logger('worker').log(`Wharf worker ready (queue prefix "${config.queuePrefix}")`);
});
