import { join } from 'node:path';
import { AppConfig, dropDatabase } from '@wharf/core';
import { AccountsService, ApiKeyRevocations } from '@wharf/accounts';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { eventually, http } from './support/http';
import { CLI, ROOT, Spawned, ensureBuilt, runNode } from './support/processes';
import { deleteQueueKeys, prepareDatabase, query, testConfig } from './support/test-app';

const API = join(ROOT, 'dist', 'apps', 'api', 'src', 'main.js');
const PROTECTED = '/int/v1/locations';

/**
 * Runs a statement that changes keys from a connection of its own, as the CLI does, and returns once that
 * connection has heard the change's notification: by then PostgreSQL has sent it to every listener.
 */
async function changed(config: AppConfig, text: string, params: unknown[]): Promise<void> {
  const client = new Client({ connectionString: config.databaseUrl });
  await client.connect();
  try {
    await client.query('LISTEN wharf_api_keys');
    const heard = new Promise((resolve) => client.once('notification', resolve));
    await client.query(text, params);
    await heard;
  } finally {
    await client.end();
  }
}

/** The connections of the database that LISTEN for key changes: one per api process that heard a key. */
const listeners = async (config: AppConfig): Promise<number[]> =>
  (
    await query(
      config,
      `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query = $1`,
      ['LISTEN wharf_api_keys'],
    )
  ).map((row) => row.pid);

describe('a revoked API key, with two api processes', () => {
  let config: AppConfig;
  let env: Record<string, string>;
  const apis: { process: Spawned; url: string }[] = [];
  let root: { company: string; key: string };

  const cli = async (...args: string[]) => {
    const run = runNode(CLI, args, env);
    expect((await run.exited).code).toBe(0);
    return run.output();
  };
  const status = async (api: { url: string }, key: string) =>
    (await http(api.url, 'GET', PROTECTED, { key })).status;

  /** A key of `company` that both processes have served, so each holds it in its cache. */
  async function keyInBothCaches(company: { company: string; key: string }) {
    const created = await http(apis[0].url, 'POST', '/int/v1/api-keys', {
      key: company.key,
      body: { api_key: { name: 'second' } },
    });
    expect(created.status).toBe(201);
    const { uuid, key } = created.body.api_key;
    for (const api of apis) expect([await status(api, key), await status(api, key)]).toEqual([200, 200]);
    return { uuid, key };
  }

  beforeAll(async () => {
    ensureBuilt();
    config = testConfig();
    await prepareDatabase(config);
    env = {
      DATABASE_URL: config.databaseUrl,
      REDIS_URL: config.redisUrl,
      QUEUE_PREFIX: config.queuePrefix,
      NODE_ENV: 'test',
    };
    for (let i = 0; i < 2; i++) {
      const child = runNode(API, [], { ...env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' });
      const port = await eventually(
        async () => child.output().match(/Server listening at http:\/\/[^\s"]+:(\d+)/)?.[1],
        60_000,
      );
      apis.push({ process: child, url: `http://127.0.0.1:${port}` });
    }
    const created = JSON.parse(await cli('companies:create', '--name', 'Acme', '--json'));
    root = { company: created.company.uuid, key: created.api_key };
    // Each process listens once it has looked up a key: from then on it caches them.
    for (const api of apis) expect(await status(api, root.key)).toBe(200);
    await eventually(async () => (await listeners(config)).length === 2, 10_000);
  }, 300_000);

  afterAll(async () => {
    for (const api of apis) api.process.child.kill('SIGTERM');
    await Promise.all(apis.map((api) => api.process.exited));
    await dropDatabase(config.databaseUrl);
    await deleteQueueKeys(config);
  });

  it('revoked through one process: the very next request to the other answers 401', async () => {
    const { uuid, key } = await keyInBothCaches(root);
    const revoked = await http(apis[0].url, 'DELETE', `/int/v1/api-keys/${uuid}`, { key: root.key });
    expect(revoked.status).toBe(200);
    expect(await status(apis[1], key)).toBe(401);
    expect(await status(apis[0], key)).toBe(401);
  });

  it('revoked by another writer (as api-keys:revoke does): the very next request to either answers 401', async () => {
    const { uuid, key } = await keyInBothCaches(root);
    await changed(config, 'UPDATE api_keys SET revoked_at = now() WHERE uuid = $1', [uuid]);
    expect([await status(apis[1], key), await status(apis[0], key)]).toEqual([401, 401]);
  });

  it('its company deleted (as companies:delete does): its keys answer 401 from both at once', async () => {
    const created = JSON.parse(await cli('companies:create', '--name', 'Globex', '--json'));
    const globex = { company: created.company.uuid, key: created.api_key };
    const { key } = await keyInBothCaches(globex);
    await changed(config, 'DELETE FROM companies WHERE uuid = $1', [globex.company]);
    expect([await status(apis[1], key), await status(apis[0], key)]).toEqual([401, 401]);
    expect([await status(apis[1], globex.key), await status(apis[0], globex.key)]).toEqual([401, 401]);
    expect(await status(apis[1], root.key)).toBe(200);
  });
});

describe("one process's cache of keys, against PostgreSQL", () => {
  let config: AppConfig;
  let dataSource: DataSource;
  let revocations: ApiKeyRevocations;
  let accounts: AccountsService;
  let company: { uuid: string };
  /** Key lookups that reached the database (a lookup served from the cache does not). */
  let lookups = 0;
  /** While set, a key lookup's result is held back until it resolves (a lookup in flight). */
  let gate: Promise<void> | undefined;
  let lookedUp: () => void = () => undefined;

  beforeAll(async () => {
    config = testConfig();
    await prepareDatabase(config);
    dataSource = new DataSource({ type: 'postgres', url: config.databaseUrl });
    await dataSource.initialize();
    // The real database; only the moment a lookup's answer comes back is controlled.
    const gated = {
      query: async (text: string, params?: unknown[]) => {
        const rows = await dataSource.query(text, params);
        if (text.startsWith('SELECT uuid, company_uuid')) {
          lookups++;
          lookedUp();
          await gate;
        }
        return rows;
      },
      transaction: dataSource.transaction.bind(dataSource),
    } as unknown as DataSource;
    revocations = new ApiKeyRevocations(config.databaseUrl);
    accounts = new AccountsService(gated, revocations);
    company = (await accounts.createCompany('Acme')).company;
  });

  afterAll(async () => {
    revocations.close();
    await dataSource.destroy();
    await dropDatabase(config.databaseUrl);
  });

  /** A new key, looked up once the process listens, so that it is cached. */
  async function cachedKey() {
    const created = await accounts.createApiKey(company.uuid, null);
    revocations.trusted();
    await eventually(async () => revocations.isListening, 10_000);
    expect(await accounts.authenticate(created.key)).toBeDefined();
    const before = lookups;
    expect(await accounts.authenticate(created.key)).toBeDefined();
    expect(lookups).toBe(before);
    return created;
  }

  it('a lookup in flight when a revocation is heard does not fill the cache', async () => {
    const { uuid, key } = await cachedKey();
    revocations.invalidate(); // empty the cache: the next lookup goes to the database
    const read = new Promise<void>((resolve) => (lookedUp = resolve));
    let open!: () => void;
    gate = new Promise((resolve) => (open = resolve));
    const inFlight = accounts.authenticate(key);
    await read; // it has read the key as active; its answer is held

    // Revoked elsewhere (another process or the CLI): heard here through NOTIFY.
    const notice = revocations.expect(uuid);
    await query(config, 'UPDATE api_keys SET revoked_at = now() WHERE uuid = $1', [uuid]);
    await notice.heard;
    gate = undefined;
    open();
    expect(await inFlight).toBeDefined(); // begun before the revocation
    expect(await accounts.authenticate(key)).toBeUndefined();
  });

  it('while its LISTEN connection is lost no cached key is used; back, it caches and hears again', async () => {
    const first = await cachedKey();
    const [pid] = await listeners(config);
    await query(config, 'SELECT pg_terminate_backend($1)', [pid]);
    await eventually(async () => !revocations.isListening, 10_000);
    // Revoked while nobody listens: no notification reaches this process.
    await query(config, 'UPDATE api_keys SET revoked_at = now() WHERE uuid = $1', [first.uuid]);
    const before = lookups;
    expect(await accounts.authenticate(first.key)).toBeUndefined();
    expect(lookups).toBe(before + 1);

    const second = await cachedKey(); // listening again (the lookup above reconnected it)
    const notice = revocations.expect(second.uuid);
    await query(config, 'UPDATE api_keys SET revoked_at = now() WHERE uuid = $1', [second.uuid]);
    await notice.heard;
    expect(await accounts.authenticate(second.key)).toBeUndefined();
  });
});
