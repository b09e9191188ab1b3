import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { INestApplicationContext } from '@nestjs/common';
import { Params, ResourceRegistry, pageStatement, parseListQuery } from '@wharf/core';
import { EVENTS, REQUEST_LOGS, listPartitions } from '@wharf/webhooks';
import { Client } from 'pg';
import { CLI, runNode } from './support/processes';
import { TestCompany, createCompany } from './support/accounts';
import { eventually, http } from './support/http';
import { Receiver } from './support/receiver';
import { TestApi, startApi, testConfig } from './support/test-app';
import { FAST_WEBHOOKS, createEndpoint, sql, warehouse } from './support/webhooks';
import { startWorker } from './support/worker';
import { PartitionMaintainer } from '@wharf/webhooks/worker';

const W = '/inventory/int/v1/warehouses';
const E = '/int/v1/webhook-endpoints';
const L = '/int/v1/webhook-request-logs';

/** Runs `work` with WEBHOOKS_PARTITION_INTERVAL set for the migration (which reads the environment). */
async function withInterval<T>(interval: string, work: () => Promise<T>): Promise<T> {
  const before = process.env.WEBHOOKS_PARTITION_INTERVAL;
  process.env.WEBHOOKS_PARTITION_INTERVAL = interval;
  try {
    return await work();
  } finally {
    if (before === undefined) delete process.env.WEBHOOKS_PARTITION_INTERVAL;
    else process.env.WEBHOOKS_PARTITION_INTERVAL = before;
  }
}

async function connect(api: TestApi): Promise<Client> {
  const client = new Client({ connectionString: api.config.databaseUrl });
  await client.connect();
  return client;
}

describe('time partitions: an interval of seconds', () => {
  let api: TestApi;
  let worker: INestApplicationContext;
  let receiver: Receiver;
  let client: Client;
  let acme: TestCompany;
  let endpoint: Awaited<ReturnType<typeof createEndpoint>>['endpoint'];
  let sent = 0;
  // Writes as fast as they go for seconds: past the default per-key limit on an idle machine (429s).
  const env = { ...FAST_WEBHOOKS, WEBHOOKS_PARTITION_INTERVAL: '1s', RATE_LIMIT_PER_MINUTE: '100000' };

  beforeAll(async () => {
    const config = testConfig(env);
    // `npm run migrate` alone (the built CLI), as an operator runs it.
    const run = runNode(CLI, ['migrate'], {
      DATABASE_URL: config.databaseUrl,
      REDIS_URL: config.redisUrl,
      QUEUE_PREFIX: config.queuePrefix,
      NODE_ENV: 'test',
      WEBHOOKS_PARTITION_INTERVAL: '1s',
    });
    expect((await run.exited).code).toBe(0);
    api = await startApi({ config });
    client = await connect(api);
    receiver = await new Receiver().start();
  });
  afterAll(async () => {
    await worker?.close();
    await client?.end();
    await receiver?.stop();
    await api?.close();
  });

  it('the partitions ahead exist after migrate alone', async () => {
    const now = Date.now();
    for (const table of [EVENTS, REQUEST_LOGS]) {
      const partitions = await listPartitions(client, table);
      expect(partitions.length).toBeGreaterThanOrEqual(3);
      // Contiguous from before now to at least two intervals ahead.
      expect(partitions[0].from).toBeLessThanOrEqual(now);
      expect(partitions[partitions.length - 1].to).toBeGreaterThan(now + 2000);
      partitions.slice(1).forEach((p, i) => expect(p.from).toBe(partitions[i].to));
    }
  });

  it('writes never fail across partition boundaries; each row lands in its interval, none in the default', async () => {
    worker = await startWorker(api.config);
    acme = await createCompany(api, 'Boundaries');
    ({ endpoint } = await createEndpoint(api, acme, `${receiver.url}/b`, ['warehouse.created']));
    const before = (await listPartitions(client, EVENTS)).length;
    const until = Date.now() + 6_000; // twice the partitions migrate made ahead
    const statuses: number[] = [];
    while (Date.now() < until) {
      const res = await http(api.url, 'POST', W, { key: acme.key, body: warehouse(`B${statuses.length}`) });
      statuses.push(res.status);
    }
    expect(statuses.length).toBeGreaterThan(20);
    expect(statuses.filter((s) => s !== 201)).toEqual([]);
    const placed = await sql(
      api,
      `SELECT tableoid::regclass::text AS part, count(*)::int AS n FROM webhook_events WHERE company_uuid = $1 GROUP BY 1`,
      [acme.uuid],
    );
    expect(placed.length).toBeGreaterThanOrEqual(5);
    expect(placed.map((p) => p.part)).not.toContain('webhook_events_default');
    expect((await listPartitions(client, EVENTS)).length).toBeGreaterThan(before);
    await eventually(
      async () => receiver.requests.filter((r) => r.path === '/b').length === statuses.length,
      20_000,
    );
    // Each attempt's log row is written once its answer is recorded.
    const logs = await eventually(async () => {
      const rows = await sql(
        api,
        `SELECT tableoid::regclass::text AS part FROM webhook_request_logs WHERE webhook_endpoint_uuid = $1`,
        [endpoint.uuid],
      );
      return rows.length === statuses.length && rows;
    });
    expect(logs.map((l) => l.part)).not.toContain('webhook_request_logs_default');
    sent = statuses.length;
  }, 40_000);

  it('request logs spread over partitions are searched, sorted and paged by keyset as one list', async () => {
    expect(sent).toBeGreaterThan(20);
    const rows = await sql(
      api,
      `SELECT uuid, sent_at, tableoid::regclass::text AS part FROM webhook_request_logs
       WHERE company_uuid = $1 ORDER BY sent_at, uuid`,
      [acme.uuid],
    );
    const parts = [...new Set(rows.map((r) => r.part as string))];
    expect(parts.length).toBeGreaterThanOrEqual(4);

    const get = async (query: string) => {
      const res = await http(api.url, 'GET', `${L}?${query}`, { key: acme.key });
      expect({ query, status: res.status }).toEqual({ query, status: 200 });
      return res.body;
    };
    /** Walks a list by `meta.next_cursor` in small pages: the uuids in the order served. */
    const walk = async (query: string) => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page = await get(`${query}&limit=7${cursor ? `&cursor=${cursor}` : ''}`);
        seen.push(...page.webhook_request_logs.map((l: { uuid: string }) => l.uuid));
        cursor = page.meta.next_cursor;
      } while (cursor);
      return seen;
    };
    const times = new Map(rows.map((r) => [r.uuid as string, new Date(r.sent_at).getTime()]));
    /** Each of `expected` once, in sent_at order (ties in any order: the list breaks them by its own key). */
    const expectWalk = (seen: string[], expected: string[], direction: 1 | -1) => {
      expect(seen).toHaveLength(expected.length);
      expect([...seen].sort()).toEqual([...expected].sort());
      seen
        .slice(1)
        .forEach((u, i) =>
          expect(direction * (times.get(u)! - times.get(seen[i])!)).toBeGreaterThanOrEqual(0),
        );
    };
    const all = rows.map((r) => r.uuid as string);
    expectWalk(await walk('sort=sent_at'), all, 1);
    expectWalk(await walk('sort=-sent_at'), all, -1);
    expect(new Set(await walk('sort=-created_at')).size).toBe(sent);

    // Search (url and event, through the search keys) and filters reach every partition.
    expect((await get('query=/b&limit=1')).meta.total).toBe(sent);
    expect((await get('event=warehouse.created&status=successful&limit=1')).meta.total).toBe(sent);
    expectWalk(await walk('query=/b&sort=sent_at'), all, 1);

    // A sent_at range over one middle partition: its rows only, and only that partition is scanned.
    const [, middle] = parts;
    const bounds = (await listPartitions(client, REQUEST_LOGS)).find((p) => p.name === middle)!;
    const inside = rows.filter((r) => r.part === middle);
    const from = new Date(bounds.from).toISOString();
    const to = new Date(bounds.to).toISOString();
    const ranged = `sent_at_gte=${from}&sent_at_lt=${to}&sort=sent_at`;
    expectWalk(
      await walk(ranged),
      inside.map((r) => r.uuid as string),
      1,
    );

    const def = api.app.get(ResourceRegistry).get('webhook-request-log');
    const params = new Params();
    const parsed = parseListQuery({ sent_at_gte: from, sent_at_lt: to, sort: 'sent_at' }, def, params);
    const text = pageStatement(def, acme.uuid, parsed, params, parsed.limit + 1, undefined, parsed.search);
    const [plan] = await sql(api, `EXPLAIN (FORMAT JSON) ${text}`, params.values);
    const scanned = [
      ...JSON.stringify(plan['QUERY PLAN']).matchAll(/"Relation Name":"(webhook_request_logs[^"]*)"/g),
    ].map((m) => m[1]);
    expect(new Set(scanned)).toEqual(new Set([middle]));
  }, 30_000);

  it("the worker vacuums and analyzes the tables delivery churns, whatever autovacuum's settings", async () => {
    const stat = async () =>
      Object.fromEntries(
        (
          await sql(
            api,
            `SELECT relname, n_dead_tup::int AS dead, last_vacuum IS NOT NULL AS vacuumed,
               last_analyze IS NOT NULL AS analyzed
             FROM pg_stat_user_tables WHERE relname IN ('webhook_deliveries', 'webhook_events_undispatched')`,
          )
        ).map((r) => [r.relname, r]),
      );
    // Every delivery of the run above was a row inserted, updated and deleted (statistics arrive within a second).
    await eventually(async () => (await stat()).webhook_deliveries?.dead >= sent);
    const before = await stat();
    expect(before.webhook_deliveries.vacuumed).toBe(false);

    const done = await worker.get(PartitionMaintainer).upkeep({ minDeadRows: sent, minModifiedRows: sent });
    expect(done).toEqual(expect.arrayContaining([{ table: 'webhook_deliveries', work: 'vacuum' }]));
    const after = await eventually(async () => {
      const now = await stat();
      return now.webhook_deliveries.vacuumed && now;
    });
    expect(after.webhook_deliveries.analyzed).toBe(true);
    expect(after.webhook_deliveries.dead).toBeLessThan(before.webhook_deliveries.dead);
    // Within the limits nothing is left to do: the next round does nothing.
    await eventually(async () =>
      (await worker.get(PartitionMaintainer).upkeep({ minDeadRows: sent, minModifiedRows: sent })).every(
        (u) => u.table !== 'webhook_deliveries',
      ),
    );
  }, 30_000);
});

describe('retention: whole partitions dropped, never a DELETE; what a delivery needs is kept', () => {
  const RETENTION_S = 8;
  const days = (RETENTION_S / 86_400).toFixed(9);
  const archive = mkdtempSync(join(tmpdir(), 'wharf-archive-'));
  let api: TestApi;
  let worker: INestApplicationContext;
  let receiver: Receiver;
  let release: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let failing = true;

  beforeAll(async () => {
    const env = {
      ...FAST_WEBHOOKS,
      WEBHOOKS_TIMEOUT_MS: '60000',
      WEBHOOKS_PARTITION_INTERVAL: '2s',
      WEBHOOKS_EVENT_RETENTION_DAYS: days,
      WEBHOOKS_LOG_RETENTION_DAYS: days,
      WEBHOOKS_ARCHIVE_DIR: archive,
    };
    api = await withInterval('2s', () => startApi({ env }));
    // Every row deleted from either table, whatever deletes it, is counted here.
    await sql(api, 'CREATE TABLE deletes_seen (tbl text)');
    await sql(
      api,
      `CREATE FUNCTION count_delete() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN INSERT INTO deletes_seen VALUES (TG_TABLE_NAME); RETURN OLD; END $$`,
    );
    for (const table of ['webhook_events', 'webhook_request_logs'])
      await sql(
        api,
        `CREATE TRIGGER count_delete BEFORE DELETE ON ${table} FOR EACH ROW EXECUTE FUNCTION count_delete()`,
      );
    receiver = await new Receiver().start();
    receiver.respond = (request) =>
      request.path === '/held'
        ? { status: 200, until: held }
        : request.path === '/failing' && failing
          ? { status: 500 }
          : { status: 200 };
  });
  afterAll(async () => {
    release();
    await worker?.close();
    await receiver?.stop();
    await api?.close();
    rmSync(archive, { recursive: true, force: true });
  });

  const deletesSeen = async () => (await sql(api, 'SELECT count(*)::int AS n FROM deletes_seen'))[0].n;
  const eventOf = async (company: TestCompany, name: string, uuid: string) =>
    (
      await sql(
        api,
        `SELECT event_id FROM webhook_events WHERE company_uuid = $1 AND name = $2 AND payload->'data'->>'id' = $3`,
        [company.uuid, name, uuid],
      )
    )[0]?.event_id as string | undefined;
  const deliveryStatus = async (event: string) =>
    (await sql(api, 'SELECT status FROM webhook_deliveries WHERE event_id = $1', [event]))[0]?.status;

  it('drops expired partitions with their archive, keeps an event a pending delivery needs, recover and resend work inside the window', async () => {
    const acme = await createCompany(api, 'Retention');
    const call = (method: string, path: string, body?: unknown) =>
      http(api.url, method, path, { key: acme.key, body });
    // The counter counts: a DELETE on the table is seen (then the baseline is taken).
    await sql(
      api,
      `INSERT INTO webhook_events (event_id, company_uuid, name, payload) VALUES ('evt_probe', $1, 'probe', '{}')`,
      [acme.uuid],
    );
    await sql(api, `DELETE FROM webhook_events WHERE event_id = 'evt_probe'`);
    expect(await deletesSeen()).toBe(1);

    worker = await startWorker(api.config);
    await createEndpoint(api, acme, `${receiver.url}/ok`, ['warehouse.created']);
    await createEndpoint(api, acme, `${receiver.url}/held`, ['warehouse.updated']);
    const flaky = (await createEndpoint(api, acme, `${receiver.url}/failing`, ['warehouse.deleted']))
      .endpoint;

    // A delivery in flight (its receiver holds the request): pending all along.
    const w1 = (await call('POST', W, warehouse('Held'))).body.warehouse.uuid;
    expect((await call('PUT', `${W}/${w1}`, { warehouse: { name: 'Held 2' } })).status).toBe(200);
    const heldEvent = await eventually(() => eventOf(acme, 'warehouse.updated', w1));
    await eventually(async () => receiver.requests.some((r) => r.path === '/held'));
    const heldAt = Date.now();
    // Later events in a later partition than the held one: written once the held one's range has ended.
    const catalog = await connect(api);
    const heldCreated = EVENTS.time(heldEvent);
    const heldRange = (await listPartitions(catalog, EVENTS)).find(
      (partition) => partition.from <= heldCreated && heldCreated < partition.to,
    );
    await catalog.end();
    expect(heldRange).toBeDefined();
    await eventually(async () => Date.now() >= heldRange!.to, 10_000, 50);

    // Delivered, then resent inside the window: the same webhook-id again.
    const w2 = (await call('POST', W, warehouse('Delivered'))).body.warehouse.uuid;
    const delivered = await eventually(() => eventOf(acme, 'warehouse.created', w2));
    await eventually(async () => receiver.requests.some((r) => r.headers['webhook-id'] === delivered));
    // The attempt's row is written once the receiver's answer is in: after the request arrives, not with it.
    const [log] = await eventually(async () => {
      const rows = await sql(api, 'SELECT uuid FROM webhook_request_logs WHERE event_id = $1', [delivered]);
      return rows.length ? rows : undefined;
    });
    expect((await call('POST', `${L}/${log.uuid}/resend`)).status).toBe(200);
    await eventually(
      async () => receiver.requests.filter((r) => r.headers['webhook-id'] === delivered).length === 2,
    );

    // Failed to exhaustion, then recovered inside the window.
    const since = new Date().toISOString();
    expect((await call('DELETE', `${W}/${w2}`)).status).toBeLessThan(300);
    const failedEvent = await eventually(() => eventOf(acme, 'warehouse.deleted', w2));
    await eventually(async () => (await deliveryStatus(failedEvent)) === 'failed');
    failing = false;
    expect((await call('POST', `${E}/${String(flaky.uuid)}/recover`, { since })).body.meta).toEqual({
      queued: 1,
    });
    await eventually(async () =>
      receiver.requests.some((r) => r.path === '/failing' && r.headers['webhook-id'] === failedEvent),
    );
    // And one left failed: it goes with its event.
    failing = true;
    const w3 = (await call('POST', W, warehouse('Failed'))).body.warehouse.uuid;
    expect((await call('DELETE', `${W}/${w3}`)).status).toBeLessThan(300);
    const leftFailed = await eventually(() => eventOf(acme, 'warehouse.deleted', w3));
    await eventually(async () => (await deliveryStatus(leftFailed)) === 'failed');

    // Past the window: the delivered and failed events' partitions are gone, archived first.
    await eventually(
      async () =>
        !(await eventOf(acme, 'warehouse.created', w2)) && !(await eventOf(acme, 'warehouse.deleted', w3)),
      30_000,
      250,
    );
    expect(await deliveryStatus(leftFailed)).toBeUndefined();
    // Log partitions are keyed by send time, so the log row's may outlive its event's by up to one interval.
    await eventually(
      async () =>
        (await sql(api, 'SELECT 1 FROM webhook_request_logs WHERE uuid = $1', [log.uuid])).length === 0,
      30_000,
      250,
    );
    // The held event's partition ended long enough ago to go too; it stays while its delivery is pending.
    expect(Date.now()).toBeGreaterThan(heldAt + (RETENTION_S + 2) * 1000);
    expect(await eventOf(acme, 'warehouse.updated', w1)).toBe(heldEvent);
    expect(await deliveryStatus(heldEvent)).toBe('admitted');
    expect(await deletesSeen()).toBe(1);

    const archived = readdirSync(archive)
      .filter((name) => name.startsWith('webhook_events_p'))
      .flatMap((name) =>
        gunzipSync(readFileSync(join(archive, name)))
          .toString()
          .trim()
          .split('\n'),
      )
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    expect(archived.map((row) => row.event_id)).toEqual(
      expect.arrayContaining([delivered, failedEvent, leftFailed]),
    );
    expect(archived.find((row) => row.event_id === delivered).payload.data.name).toBe('Delivered');
    expect(readdirSync(archive).some((name) => name.startsWith('webhook_request_logs_p'))).toBe(true);
  }, 60_000);
});

describe('retention waits for its lock briefly and tries again, so writers never queue behind it', () => {
  let api: TestApi;
  let worker: INestApplicationContext;
  const clients: Client[] = [];

  beforeAll(async () => {
    const env = { ...FAST_WEBHOOKS, WEBHOOKS_PARTITION_INTERVAL: '2s' };
    api = await withInterval('2s', () => startApi({ env }));
    worker = await startWorker(api.config);
    for (let i = 0; i < 3; i++) clients.push(await connect(api));
  });
  afterAll(async () => {
    await worker?.close();
    for (const client of clients) await client.end();
    await api?.close();
  });

  it('a reader holding the table: a later query goes ahead of the waiting drop, which drops once the reader is done', async () => {
    const [reader, other, watch] = clients;
    const before = await listPartitions(watch, REQUEST_LOGS);
    expect(before.length).toBeGreaterThan(0);
    await reader.query('BEGIN');
    await reader.query('SELECT count(*) FROM webhook_request_logs');
    // Every partition is past a horizon 400 days ahead.
    const purge = worker.get(PartitionMaintainer).purge(Date.now() + 400 * 86_400_000);
    await eventually(
      async () =>
        (
          await watch.query(
            `SELECT 1 FROM pg_locks WHERE relation = 'webhook_request_logs'::regclass
             AND mode = 'AccessExclusiveLock' AND NOT granted`,
          )
        ).rows.length > 0,
      10_000,
      10,
    );
    // Queued behind the drop's lock request until it gives up: done while the reader still holds the table.
    await other.query('SELECT count(*) FROM webhook_request_logs');
    await reader.query('COMMIT');
    await purge;
    const after = (await listPartitions(watch, REQUEST_LOGS)).map((partition) => partition.name);
    expect(after).not.toEqual(expect.arrayContaining([before[0].name]));
  }, 30_000);
});
