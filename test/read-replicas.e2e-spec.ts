import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { AccountsService } from '@wharf/accounts';
import { Client } from 'pg';
import { createCompany } from './support/accounts';
import { eventually, http } from './support/http';
import { OwnPostgres } from './support/own-postgres';
import { CLI, Spawned, ensureBuilt, runNode } from './support/processes';
import { Receiver } from './support/receiver';
import { TestApi, startApi, testConfig } from './support/test-app';
import { createEndpoint, warehouse, workerEnv } from './support/webhooks';

const W = '/inventory/int/v1/warehouses';
const WORKER = join(CLI, '..', '..', '..', 'worker', 'src', 'main.js');

/** Runs one statement on `server` (the test's own connection, named so it is not taken for the api's). */
async function on(server: OwnPostgres, database: string, text: string, params: unknown[] = []) {
  const client = new Client({ connectionString: server.url(database), application_name: 'wharf-test' });
  await client.connect();
  try {
    return (await client.query(text, params)).rows;
  } finally {
    await client.end();
  }
}

describe('read replicas: reads on a streaming replica, read-your-writes per caller, failures', () => {
  const database = `wharf_replicas_${randomBytes(4).toString('hex')}`;
  let primary: OwnPostgres;
  let replica: OwnPostgres;
  let api: TestApi;
  let writer: string;
  let reader: string;
  let observer: string;
  let stored: string;
  /** Every status the api answered in this suite. */
  const statuses: number[] = [];

  const call = async (method: string, path: string, key?: string, body?: unknown, url = api.url) => {
    const res = await http(url, method, path, { key, body });
    statuses.push(res.status);
    return res;
  };
  const replicaSql = (text: string, params: unknown[] = []) => on(replica, database, text, params);

  /** Reads counted by wharf_database_reads_total, by the server that answered them. */
  async function reads(url = api.url): Promise<{ primary: number; replica: number }> {
    const text = (await http(url, 'GET', '/metrics')).text;
    const count = (server: string) =>
      Number(
        new RegExp(`^wharf_database_reads_total\\{server="${server}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0,
      );
    return { primary: count('primary'), replica: count('replica') };
  }

  /** The server that answered `request`'s reads (the suite's requests run one at a time). */
  async function servedBy<T>(request: () => Promise<T>): Promise<{ result: T; by: string }> {
    const before = await reads();
    const result = await request();
    const after = await reads();
    const by = [
      after.primary > before.primary ? 'primary' : '',
      after.replica > before.replica ? 'replica' : '',
    ].join('');
    return { result, by };
  }

  /** Until the replica has replayed everything the primary had written when this was called. */
  async function replayed(): Promise<void> {
    const [{ lsn }] = await on(primary, database, 'SELECT pg_current_wal_insert_lsn()::text AS lsn');
    await eventually(async () => {
      const [row] = await replicaSql('SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done', [lsn]);
      return row.done as boolean;
    });
  }

  async function pauseReplay(): Promise<void> {
    await replicaSql('SELECT pg_wal_replay_pause()');
    await eventually(
      async () => (await replicaSql('SELECT pg_get_wal_replay_pause_state() AS s'))[0].s === 'paused',
    );
  }

  const resumeReplay = () => replicaSql('SELECT pg_wal_replay_resume()');

  beforeAll(async () => {
    ensureBuilt();
    primary = await OwnPostgres.create(['log_connections=on']);
    replica = await primary.standby();
    api = await startApi({
      config: testConfig({
        DATABASE_URL: primary.url(database),
        DATABASE_REPLICA_URLS: replica.url(database),
        // Replay is paused for a while in these tests: the replica stays in use meanwhile.
        DATABASE_REPLICA_MAX_LAG: '60s',
      }),
    });
    const company = await createCompany(api, 'Replicated');
    writer = company.key;
    const accounts = api.app.get(AccountsService);
    reader = (await accounts.createApiKey(company.uuid, 'reader')).key;
    observer = (await accounts.createApiKey(company.uuid, 'observer')).key;
    const created = await call('POST', W, writer, warehouse('Stored'));
    expect(created.status).toBe(201);
    stored = created.body.warehouse.uuid;
    await replayed();
  }, 120_000);

  /** Replica processes a test stopped (SIGSTOP): let go whatever that test's end did not. */
  const frozen: number[] = [];
  const thaw = () => {
    for (const pid of frozen.splice(0)) process.kill(pid, 'SIGCONT');
  };

  afterAll(async () => {
    thaw();
    await resumeReplay().catch(() => undefined);
    await api?.close();
    await replica?.destroy();
    await primary?.destroy();
  });

  it('serves lists and GET one from the replica (its pg_stat_activity shows the api reading there)', async () => {
    const one = await eventually(async () => {
      const served = await servedBy(() => call('GET', `${W}/${stored}`, observer));
      return served.result.status === 200 && served.by === 'replica' ? served : undefined;
    });
    expect(one.result.body.warehouse.name).toBe('Stored');
    const list = await servedBy(() => call('GET', `${W}?sort=name`, observer));
    expect(list.by).toBe('replica');
    expect(list.result.body.warehouses.map((w: { uuid: string }) => w.uuid)).toEqual([stored]);
    const statements = await replicaSql(
      `SELECT query FROM pg_stat_activity WHERE datname = $1 AND application_name = 'wharf-api'`,
      [database],
    );
    expect(statements.some(({ query }) => /FROM\s+"?warehouses"?/i.test(query))).toBe(true);
  });

  it("reads a write back at once from the primary while the replica's replay is paused; another key reads the replica", async () => {
    await pauseReplay();
    try {
      const created = await call('POST', W, writer, warehouse('Written while paused'));
      expect(created.status).toBe(201);
      const uuid = created.body.warehouse.uuid;

      const own = await servedBy(() => call('GET', `${W}/${uuid}`, writer));
      expect({ status: own.result.status, by: own.by }).toEqual({ status: 200, by: 'primary' });
      const ownList = await servedBy(() => call('GET', W, writer));
      expect(ownList.by).toBe('primary');
      expect(ownList.result.body.warehouses.map((w: { uuid: string }) => w.uuid)).toContain(uuid);

      // The replica has not replayed the write: another key of the same company does not see it yet.
      const other = await servedBy(() => call('GET', `${W}/${uuid}`, reader));
      expect({ status: other.result.status, by: other.by }).toEqual({ status: 404, by: 'replica' });
      const otherList = await servedBy(() => call('GET', W, reader));
      expect(otherList.by).toBe('replica');
      expect(otherList.result.body.warehouses.map((w: { uuid: string }) => w.uuid)).toEqual([stored]);
    } finally {
      await resumeReplay();
    }
  });

  it("once the replica has replayed the writer's write, the writer reads the replica again", async () => {
    await replayed();
    // Paused again, a write by another key tells the replica's answers from the primary's.
    await pauseReplay();
    try {
      const created = await call('POST', W, reader, warehouse('Only on the primary'));
      expect(created.status).toBe(201);
      const onlyOnPrimary = created.body.warehouse.uuid;
      const back = await eventually(async () => {
        const served = await servedBy(() => call('GET', W, writer));
        return served.by === 'replica' ? served : undefined;
      });
      const names = back.result.body.warehouses.map((w: { name: string }) => w.name).sort();
      expect(names).toEqual(['Stored', 'Written while paused']);
      expect((await call('GET', `${W}/${onlyOnPrimary}`, writer)).status).toBe(404);
      expect((await call('GET', `${W}/${onlyOnPrimary}`, reader)).status).toBe(200);
    } finally {
      await resumeReplay();
    }
  });

  it("a portal session's reads wait for its own writes too, keyed by the session", async () => {
    const opened = await call('POST', '/int/v1/portal-sessions', writer, {});
    expect(opened.status).toBe(201);
    const exchanged = await http(api.url, 'POST', '/int/v1/portal-sessions/exchange', {
      body: { token: opened.body.portal_session.token },
    });
    const cookie = /^(wharf_portal=[^;]+)/.exec(exchanged.headers.get('set-cookie') ?? '')![1];
    const portal = async (method: string, path: string, body?: unknown) => {
      const res = await http(api.url, method, path, { body, headers: { cookie, 'x-wharf-portal': '1' } });
      statuses.push(res.status);
      return res;
    };
    await replayed();
    await pauseReplay();
    try {
      const created = await portal('POST', '/int/v1/webhook-endpoints', {
        webhook_endpoint: { url: 'http://127.0.0.1:9/portal', events: ['*'] },
      });
      expect(created.status).toBe(201);
      const path = `/int/v1/webhook-endpoints/${created.body.webhook_endpoint.uuid}`;
      const own = await servedBy(() => portal('GET', path));
      expect({ status: own.result.status, by: own.by }).toEqual({ status: 200, by: 'primary' });
      const other = await servedBy(() => call('GET', path, observer));
      expect({ status: other.result.status, by: other.by }).toEqual({ status: 404, by: 'replica' });
    } finally {
      await resumeReplay();
    }
  });

  it('the events API, the request log and the activity chart read on the replica; their writer reads its own from the primary', async () => {
    const receiver = await new Receiver().start();
    try {
      const endpoint = await call('POST', '/int/v1/webhook-endpoints', writer, {
        webhook_endpoint: { url: `${receiver.url}/hook`, events: ['warehouse.created'] },
      });
      expect(endpoint.status).toBe(201);
      await replayed();
      await pauseReplay();
      try {
        // Written by one key while replay is paused: an event and a request-log row on the primary only.
        const created = await call('POST', W, reader, warehouse('Evented while paused'));
        expect(created.status).toBe(201);
        const tested = await call(
          'POST',
          `/int/v1/webhook-endpoints/${endpoint.body.webhook_endpoint.uuid}/test`,
          reader,
          {},
        );
        expect(tested.status).toBe(200);

        const events = `/int/v1/events?data_id=${created.body.warehouse.uuid}`;
        const ownEvents = await servedBy(() => call('GET', events, reader));
        expect({ by: ownEvents.by, count: ownEvents.result.body.events.length }).toEqual({
          by: 'primary',
          count: 1,
        });
        const event = `/int/v1/events/${ownEvents.result.body.events[0].id}`;
        const otherEvents = await servedBy(() => call('GET', events, observer));
        expect({ by: otherEvents.by, events: otherEvents.result.body.events }).toEqual({
          by: 'replica',
          events: [],
        });
        const otherEvent = await servedBy(() => call('GET', event, observer));
        expect({ status: otherEvent.result.status, by: otherEvent.by }).toEqual({
          status: 404,
          by: 'replica',
        });

        const log = `/int/v1/webhook-request-logs/${tested.body.webhook_request_log.uuid}`;
        const ownLog = await servedBy(() => call('GET', log, reader));
        expect({ status: ownLog.result.status, by: ownLog.by }).toEqual({ status: 200, by: 'primary' });
        const otherLog = await servedBy(() => call('GET', log, observer));
        expect({ status: otherLog.result.status, by: otherLog.by }).toEqual({ status: 404, by: 'replica' });

        const activity = await servedBy(() => call('GET', '/int/v1/webhook-activity', observer));
        expect({ status: activity.result.status, by: activity.by }).toEqual({ status: 200, by: 'replica' });
        const ownActivity = await servedBy(() => call('GET', '/int/v1/webhook-activity', reader));
        expect({ status: ownActivity.result.status, by: ownActivity.by }).toEqual({
          status: 200,
          by: 'primary',
        });
      } finally {
        await resumeReplay();
      }
    } finally {
      await receiver.stop();
    }
  });

  it('skips a replica further behind than DATABASE_REPLICA_MAX_LAG: /health says lagging, reads go to the primary', async () => {
    const strict = await startApi({
      config: { ...api.config, databaseReplicaMaxLagMs: 1000 },
    });
    try {
      await replayed();
      await eventually(
        async () => (await call('GET', '/health', undefined, undefined, strict.url)).body.status === 'ok',
      );
      await pauseReplay();
      const created = await call('POST', W, reader, warehouse('Behind a lagging replica'));
      const uuid = created.body.warehouse.uuid;
      const lagging = await eventually(async () => {
        const res = await call('GET', '/health', undefined, undefined, strict.url);
        return res.body.checks.replicas?.[0] === 'lagging' ? res : undefined;
      });
      expect({ status: lagging.status, body: lagging.body }).toEqual({
        status: 200,
        body: { status: 'degraded', checks: { database: 'up', redis: 'up', replicas: ['lagging'] } },
      });
      // The observer never wrote: on the strict api it reads the primary, on the other one the replica.
      expect((await call('GET', `${W}/${uuid}`, observer, undefined, strict.url)).status).toBe(200);
      expect((await call('GET', `${W}/${uuid}`, observer)).status).toBe(404);
      const lag = (await http(strict.url, 'GET', '/metrics')).text;
      expect(
        Number(/^wharf_database_replica_lag_seconds\{replica="1"\} (\S+)/m.exec(lag)?.[1]),
      ).toBeGreaterThan(1);
    } finally {
      await resumeReplay();
      await strict.close({ keepData: true });
    }
  });
  it('a replica stopped mid-test: reads answer 200 from the primary, /health is degraded, and the replica is used again once back', async () => {
    let stopped = false;
    const load = Array.from({ length: 4 }, async (_, lane) => {
      for (let i = 0; !stopped; i++) {
        if (lane === 0 && i % 5 === 0) await call('POST', W, writer, warehouse(`load ${i}`));
        else await call('GET', lane % 2 ? `${W}/${stored}` : `${W}?limit=5`, observer);
      }
    });
    try {
      const before = (await reads()).replica;
      await eventually(async () => (await reads()).replica > before + 20);
      await replica.stop('fast');
      const down = await eventually(async () => {
        const res = await call('GET', '/health');
        return res.body.checks.replicas?.[0] === 'down' ? res : undefined;
      });
      expect({ status: down.status, body: down.body }).toEqual({
        status: 200,
        body: { status: 'degraded', checks: { database: 'up', redis: 'up', replicas: ['down'] } },
      });
      // Reads go on, from the primary.
      const whileDown = await servedBy(() => call('GET', `${W}/${stored}`, observer));
      expect({ status: whileDown.result.status, by: whileDown.by }).toEqual({ status: 200, by: 'primary' });

      await replica.start();
      await eventually(async () => (await call('GET', '/health')).body.status === 'ok', 30_000);
      await eventually(
        async () => (await servedBy(() => call('GET', `${W}/${stored}`, observer))).by === 'replica',
      );
    } finally {
      stopped = true;
      await Promise.all(load);
    }
  }, 120_000);

  it('a replica that freezes (its processes stopped): reads sent to it answer 200 from the primary', async () => {
    await replayed();
    await eventually(
      async () => (await servedBy(() => call('GET', `${W}/${stored}`, observer))).by === 'replica',
    );
    const postmaster = replica.pid();
    frozen.push(
      postmaster,
      ...execFileSync('pgrep', ['-P', String(postmaster)], { encoding: 'utf8' })
        .split('\n')
        .filter(Boolean)
        .map(Number),
    );
    for (const pid of frozen) process.kill(pid, 'SIGSTOP');
    try {
      // Sent at once, before a sample can tell: they reach the replica, which never answers.
      const before = await reads();
      const answers = await Promise.all(
        Array.from({ length: 6 }, () => call('GET', `${W}/${stored}`, observer)),
      );
      expect(answers.map((answer) => answer.status)).toEqual(Array(6).fill(200));
      expect((await reads()).primary - before.primary).toBeGreaterThanOrEqual(6);
    } finally {
      thaw();
    }
    await eventually(async () => (await call('GET', '/health')).body.status === 'ok', 30_000);
  }, 60_000);

  it('the worker never connects to a replica, even with DATABASE_REPLICA_URLS set', async () => {
    const receiver = await new Receiver().start();
    // Named in its URL, a connection to the replica from the worker would say so in the replica's log.
    const probe = `${replica.url(database)}?application_name=worker-replica-probe`;
    let worker: Spawned | undefined;
    try {
      const company = await createCompany(api, 'Delivered');
      await createEndpoint(api, company, `${receiver.url}/hook`, ['warehouse.created']);
      worker = runNode(WORKER, [], workerEnv(api, { DATABASE_REPLICA_URLS: probe }));
      expect((await call('POST', W, company.key, warehouse('Delivered by the worker'))).status).toBe(201);
      // The worker is up, reading and writing the primary: it delivered the event.
      await eventually(async () => receiver.requests.length > 0, 30_000);
      // A connection named in its URL is logged with that name: the sentinel's is, the worker's never was.
      const sentinel = new Client(`${replica.url(database)}?application_name=replica-probe-sentinel`);
      await sentinel.connect();
      await sentinel.end();
      const connections = () =>
        replica
          .log()
          .split('\n')
          .filter((line) => /connection authorized/.test(line));
      await eventually(async () => connections().some((line) => /replica-probe-sentinel/.test(line)));
      expect(connections().some((line) => /application_name=wharf-api/.test(line))).toBe(true);
      expect(connections().filter((line) => /worker-replica-probe/.test(line))).toEqual([]);
    } finally {
      worker?.child.kill('SIGTERM');
      await worker?.exited;
      await receiver.stop();
    }
  }, 120_000);

  it('answered no 5xx in the whole suite', () => {
    expect(statuses.length).toBeGreaterThan(20);
    expect(statuses.filter((status) => status >= 500)).toEqual([]);
  });
});
