// First: what it defers must be in place before the imports below require it.
import './boot.preload';
import 'reflect-metadata';
import { setFlagsFromString } from 'node:v8';
import { assertPortFree, loadConfig, portProblem, preflight, runMain, startTracing } from '@wharf/core';
import { createApi } from './api';

// V8 lets the old generation grow to about three times what survives a full GC before collecting again,
// so under load the api's peak RSS was several times its live heap; a smaller growth step (below) keeps the
// peak near it at no visible CPU cost. Read at every GC, so it takes effect when set here; the semi-space size is fixed
// at startup (API_NODE_FLAGS).
setFlagsFromString('--heap-growing-percent=30');

runMain(async () => {
  const config = loadConfig();
  await assertPortFree(config.port, config.host);
  await preflight(config);
  await startTracing('wharf-api');
  const app = await createApi(config);
  // Taken meanwhile (another process started at the same moment): still the one line, not a stack.
  await app.listen({ port: config.port, host: config.host }).catch((error: unknown) => {
    throw portProblem(error, config.port, 'PORT') ?? error;
  });
  app
    .getHttpAdapter()
    .getInstance()
    .log.info(
      `Wharf api listening on http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${config.port}`,
    );
});
