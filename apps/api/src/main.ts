import 'reflect-metadata';
import { loadConfig, preflight, runMain } from '@wharf/core';
import { createApi } from './api';

runMain(async () => {
  const config = loadConfig();
  await preflight(config);
  const app = await createApi(config);
  await app.listen({ port: config.port, host: '0.0.0.0' });
  app.getHttpAdapter().getInstance().log.info(`Wharf api listening on http://localhost:${config.port}`);
});
