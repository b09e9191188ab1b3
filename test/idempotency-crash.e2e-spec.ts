import { join } from 'node:path';
import { AppConfig, deleteKeysWithPrefix, dropDatabase } from '@wharf/core';
import { Client } from 'pg';
import { eventually, http } from './support/http';
import { freePort } from './support/ports';
import { Link, TcpProxy } from './support/tcp-proxy';
import { CLI, Spawned, assertBuilt, runNode } from './support/processes';
import { REDIS_URL, prepareDatabase, testConfig } from './support/test-app';
import { warehouse } from './support/webhooks';

const API = join(CLI, '..', '..', '..', 'api', 'src', 'main.js');
const W = '/inventory/int/v1/warehouses';

/** Passes requests on to the api but keeps every byte of its answers from the client (TcpProxy's `link`). */
const withholdAnswers: Link = (client, upstream) => {
  client.pipe(upstream);
  upstream.resume();
};

describe('Idempotency-Key: the api killed between the commit and its answer', () => {
  let config: AppConfig;
  let env: Record<string, string>;
  let api: Spawned | undefined;
  let url: string;
  let key: string;

  const start = async () => {
    api = runNode(API, [], env);
    await eventually(async () => (await http(url, 'GET', '/health')).status === 200, 60_000);
  };

  beforeAll(async () => {
    assertBuilt();
    const port = await freePort();
    config = testConfig();
    env = {
      NODE_ENV: 'test',
      DATABASE_URL: config.databaseUrl,
      REDIS_URL,
      QUEUE_PREFIX: config.queuePrefix,
      HOST: '127.0.0.1',
      PORT: String(port),
    };
    await prepareDatabase(config);
    url = `http://127.0.0.1:${port}`;
    await start();
    const created = runNode(CLI, ['companies:create', '--name', 'Crash', '--json'], env);
    expect((await created.exited).code).toBe(0);
    key = JSON.parse(created.output().trim().split('\n').pop()!).api_key;
  }, 120_000);

  afterAll(async () => {
    api?.child.kill('SIGTERM');
    await api?.exited;
    await dropDatabase(config.databaseUrl);
    await deleteKeysWithPrefix(config, config.queuePrefix);
  });

  it.each([
    // A plain create stores its key in its own statement; one with children in the request's transaction.
    ['a plain create (one statement)', 'Crash once', {}],
    [
      'a create with children (a transaction)',
      'Crash nested',
      { sections: [{ name: 'S1' }, { name: 'S2' }] },
    ],
  ])(
    '%s: the retry gets the stored answer of the committed write, one record, one event',
    async (_, name, extra) => {
      const db = new Client({ connectionString: config.databaseUrl });
      await db.connect();
      const proxy = await new TcpProxy(Number(env.PORT), '127.0.0.1', withholdAnswers).start();
      try {
        // The outbox's NOTIFY is delivered when the write's transaction commits.
        await db.query('LISTEN wharf_webhook_events');
        const committed = new Promise<void>((resolve) => db.once('notification', () => resolve()));
        const lost = http(`http://127.0.0.1:${proxy.port}`, 'POST', W, {
          key,
          body: warehouse(name, extra),
          headers: { 'idempotency-key': `crash-${name}` },
        }).then(
          () => 'answered',
          () => 'no answer',
        );
        await committed;
        api!.child.kill('SIGKILL');
        await api!.exited;
        expect(await lost).toBe('no answer');

        const [stored] = (await db.query('SELECT uuid FROM warehouses WHERE name = $1', [name])).rows;
        expect(stored).toBeDefined();

        await start();
        const retry = await http(url, 'POST', W, {
          key,
          body: warehouse(name, extra),
          headers: { 'idempotency-key': `crash-${name}` },
        });
        expect(retry.status).toBe(201);
        expect(retry.headers.get('idempotent-replayed')).toBe('true');
        expect(retry.body.warehouse.uuid).toBe(stored.uuid);
        expect(retry.headers.get('location')).toBe(`${W}/${stored.uuid}`);
        const counts = await db.query(
          `SELECT (SELECT count(*) FROM warehouses WHERE name = $1)::int AS records,
                (SELECT count(*) FROM webhook_events WHERE name = 'warehouse.created'
                 AND payload -> 'data' ->> 'name' = $1)::int AS events`,
          [name],
        );
        expect(counts.rows[0]).toEqual({ records: 1, events: 1 });
      } finally {
        await proxy.stop();
        await db.end();
      }
    },
    120_000,
  );
});
