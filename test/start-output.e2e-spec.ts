import { AddressInfo, Server, createServer } from 'node:net';
import { join } from 'node:path';
import { AppConfig, dropDatabase } from '@wharf/core';
import { freePort } from './support/ports';
import { CLI, ensureBuilt, runNode } from './support/processes';
import { REDIS_URL, deleteQueueKeys, prepareDatabase, testConfig } from './support/test-app';

const DIST_APPS = join(CLI, '..', '..', '..');
const API = join(DIST_APPS, 'api', 'src', 'main.js');
const WORKER = join(DIST_APPS, 'worker', 'src', 'main.js');

function envOf(config: AppConfig, extra: Record<string, string>): Record<string, string> {
  return { DATABASE_URL: config.databaseUrl, REDIS_URL, QUEUE_PREFIX: config.queuePrefix, ...extra };
}

describe('a port in use: one line naming the port and its variable, exit 1, nothing else', () => {
  let config: AppConfig;
  let holder: Server;
  let port: number;
  const taken = (variable: string) =>
    `wharf: port ${port} is already in use (is Wharf already running?): stop what listens there, or set ${variable}= to a free port\n`;

  beforeAll(async () => {
    ensureBuilt();
    config = testConfig();
    // A migrated database, as a second `npm start` finds it: what fails is the port, not the database.
    await prepareDatabase(config);
    // Every address, as a running Wharf api holds it.
    holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '0.0.0.0', resolve));
    port = (holder.address() as AddressInfo).port;
  }, 300_000);
  afterAll(async () => {
    await new Promise((resolve) => holder.close(resolve));
    await dropDatabase(config.databaseUrl);
    await deleteQueueKeys(config);
  });

  it.each([
    ['npm start (the CLI start command)', CLI, ['start']],
    ['the api alone (npm run start:api)', API, []],
  ])(
    '%s',
    async (_name, script, args) => {
      const run = runNode(script, args, envOf(config, { PORT: String(port), NODE_ENV: 'development' }));
      const { code } = await run.exited;
      expect({ code, output: run.output() }).toEqual({ code: 1, output: taken('PORT') });
    },
    60_000,
  );

  it('a worker whose METRICS_PORT is in use says so in one line (npm start checks it before it starts)', async () => {
    const env = envOf(config, { PORT: String(await freePort()), METRICS_PORT: String(port) });
    for (const script of [WORKER, CLI]) {
      const run = runNode(script, script === CLI ? ['start'] : [], { ...env, NODE_ENV: 'development' });
      const { code } = await run.exited;
      expect({ script, code, output: run.output() }).toEqual({
        script,
        code: 1,
        output: taken('METRICS_PORT'),
      });
    }
  }, 60_000);
});
