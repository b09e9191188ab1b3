import 'reflect-metadata';
import { loadConfig, preflight, runMain } from '@wharf/core';
import { createApi } from './api';

runMain(async () => {
  const config = loadConfig();
  await preflight(config);
  const app = await createApi(config);
  await app.listen({ port: config.port, host: config.host });
  app
    .getHttpAdapter()
    .getInstance()
    .log.info(
      `Wharf api listening on http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${config.port}`,
    );
});
