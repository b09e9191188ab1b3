import { AddressInfo, Server, createServer } from 'node:net';
import { join } from 'node:path';
import { AppConfig, dropDatabase } from '@wharf/core';
import { createCompany } from './support/accounts';
import { eventually, http } from './support/http';
import { freePort } from './support/ports';
import { CLI, Spawned, descendants, ensureBuilt, runNode, running } from './support/processes';
import { Receiver } from './support/receiver';
import {
  REDIS_URL,
  TestApi,
  deleteQueueKeys,
  prepareDatabase,
  query,
  startApi,
  testConfig,
} from './support/test-app';
import { createEndpoint } from './support/webhooks';

const DIST_APPS = join(CLI, '..', '..', '..');
const API = join(DIST_APPS, 'api', 'src', 'main.js');
const WORKER = join(DIST_APPS, 'worker', 'src', 'main.js');
const DEMO_KEY = /^\s+wharf_live_[0-9A-Za-z]{36}$/;

function envOf(config: AppConfig, extra: Record<string, string>): Record<string, string> {
  return { DATABASE_URL: config.databaseUrl, REDIS_URL, QUEUE_PREFIX: config.queuePrefix, ...extra };
}

/** Stops `start` and every process it started. */
async function stopAll(start: Spawned): Promise<void> {
  const started = [start.child.pid!, ...descendants(start.child.pid!)];
  start.child.kill('SIGTERM');
  await eventually(async () => started.every((pid) => !running(pid)), 20_000).catch(() =>
    started.filter(running).forEach((pid) => process.kill(pid, 'SIGKILL')),
  );
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

/**
 * `npm start` (the command after its build) on a fresh development database, with an endpoint that answers
 * every delivery 500: what it printed first (the demo key) stays on screen while the attempts fail.
 */
describe('npm start in development, with an endpoint whose deliveries fail', () => {
  const ATTEMPTS = 5;
  let config: AppConfig;
  let port: number;
  let start: Spawned;
  let receiver: Receiver;

  beforeAll(async () => {
    ensureBuilt();
    config = testConfig();
    port = await freePort();
    receiver = await new Receiver().start();
    receiver.respond = () => ({ status: 500, body: 'down' });
    start = runNode(
      CLI,
      ['start'],
      envOf(config, {
        PORT: String(port),
        NODE_ENV: 'development',
        // Retries a few tenths of a second apart, and more of them than the test waits for.
        WEBHOOKS_RETRY_SCHEDULE: Array(20).fill('200ms').join(','),
      }),
    );
    // Both halves up: the api may be listening a moment after the worker says it is ready, or before.
    await eventually(
      async () =>
        start.output().includes('Wharf worker ready') && start.output().includes('Wharf api listening'),
      120_000,
      200,
    );
  }, 300_000);
  afterAll(async () => {
    if (start) await stopAll(start);
    await receiver.stop();
    await dropDatabase(config.databaseUrl);
    await deleteQueueKeys(config);
  }, 60_000);

  it('reports the migrations as a count, names the console beside the api, and the console answers', async () => {
    const lines = start.output().split('\n');
    expect(lines).toContainEqual(expect.stringMatching(/^Applied \d+ migrations\.$/));
    expect(start.output()).not.toContain('CreateCompaniesAndApiKeys');
    const api = `http://localhost:${port}`;
    expect(lines).toContain(
      `Wharf is starting: api on ${api} (health: /health), console on ${api}/console/, worker on ${REDIS_URL}`,
    );
    const page = await http(`http://127.0.0.1:${port}`, 'GET', '/console/');
    expect({ status: page.status, type: page.headers.get('content-type') }).toEqual({
      status: 200,
      type: expect.stringContaining('text/html'),
    });
  });

  it(`keeps the demo key on screen while ${ATTEMPTS} attempts fail: no line per retry, no "error: null"`, async () => {
    const key = start
      .output()
      .split('\n')
      .find((line) => DEMO_KEY.test(line))!
      .trim();
    const as = { key };
    const endpoint = await http(`http://127.0.0.1:${port}`, 'POST', '/int/v1/webhook-endpoints', {
      ...as,
      body: { webhook_endpoint: { url: `${receiver.url}/hook`, events: ['warehouse.created'] } },
    });
    expect(endpoint.status).toBe(201);
    const created = await http(`http://127.0.0.1:${port}`, 'POST', '/inventory/int/v1/warehouses', {
      ...as,
      body: {
        warehouse: { name: 'North', address: '1 Quay', city: 'R', state: 'ZH', zip: '1', capacity: 1 },
      },
    });
    expect(created.status).toBe(201);
    // The positive signal: that many failed attempts are in the request log (each is logged after its record).
    await eventually(
      async () =>
        (
          await query(
            config,
            "SELECT count(*)::int AS n FROM webhook_request_logs WHERE status <> 'successful'",
          )
        )[0].n >= ATTEMPTS,
      60_000,
      200,
    );

    const lines = start
      .output()
      .split('\n')
      .filter((line) => line.trim() !== '');
    const after = lines.slice(lines.findIndex((line) => DEMO_KEY.test(line)) + 1);
    // The curl line, the banner, the api's addresses and the worker's ready line; nothing per attempt.
    expect(after.length).toBeLessThanOrEqual(8);
    expect(after.join('\n')).not.toContain('delivery attempt failed');
    expect(lines.filter((line) => /error: null/.test(line))).toEqual([]);
  }, 90_000);
});

describe('partition upkeep: gathering statistics is logged at debug', () => {
  let api: TestApi;
  let worker: Spawned | undefined;

  beforeAll(async () => {
    ensureBuilt();
    api = await startApi();
  }, 300_000);
  afterAll(async () => {
    worker?.child.kill('SIGTERM');
    await worker?.exited;
    await api.close();
  }, 60_000);

  it('analyze webhook_endpoints (a first endpoint is enough for it) is a debug line', async () => {
    const company = await createCompany(api);
    await createEndpoint(api, company, 'http://127.0.0.1:9/hook');
    // Statistics reach pg_stat once the writing connection flushes them (within about 10 s while it idles):
    // then the worker's first upkeep round analyzes the table.
    await eventually(
      async () =>
        (
          await query(
            api.config,
            "SELECT n_mod_since_analyze::int AS n FROM pg_stat_user_tables WHERE relname = 'webhook_endpoints'",
          )
        )[0]?.n > 0,
      30_000,
      250,
    );
    worker = runNode(WORKER, [], envOf(api.config, { NODE_ENV: 'test', LOG_LEVEL: 'debug' }));
    const line = await eventually(
      async () =>
        worker!
          .output()
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .map((l) => JSON.parse(l))
          .find((entry) => /^analyze webhook_endpoints: \d+ ms$/.test(entry.msg)),
      30_000,
      200,
    );
    expect(line.level).toBe(20);
  }, 90_000);
});
