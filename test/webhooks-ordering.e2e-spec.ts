import { join } from 'node:path';
import { TestCompany, createCompany } from './support/accounts';
import { eventually, http } from './support/http';
import { CLI, assertBuilt, runNode } from './support/processes';
import { Received, Receiver } from './support/receiver';
import { TestApi, startApi } from './support/test-app';
import { FAST_WEBHOOKS, createEndpoint, warehouse, workerEnv } from './support/webhooks';
import { startWorker } from './support/worker';

const W = '/inventory/int/v1/warehouses';
const E = '/int/v1/webhook-endpoints';
const L = '/int/v1/webhook-request-logs';
/** These suites write hundreds of records a minute from one address. */
const NO_RATE_LIMIT = { RATE_LIMIT_PER_MINUTE: '100000' };
const WORKER = join(CLI, '..', '..', '..', 'worker', 'src', 'main.js');
const UPDATES = 5;

/** A record's events in commit order: create = 0, update k = k, delete = UPDATES + 1. */
function position(request: Received): { record: string; index: number } {
  const envelope = JSON.parse(request.body);
  const { id, name } = envelope.data as { id: string; name: string };
  if (envelope.event === 'warehouse.created') return { record: id, index: 0 };
  if (envelope.event === 'warehouse.deleted') return { record: id, index: UPDATES + 1 };
  return { record: id, index: Number(/-u(\d+)$/.exec(name)![1]) };
}

/** Creates, updates UPDATES times and deletes each record, each record's writes one after another. */
async function writeRecords(api: TestApi, company: TestCompany, count: number, updates = UPDATES) {
  const records: string[] = [];
  for (let i = 0; i < count; i += 10) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(10, count - i) }, async (_, j) => {
        const name = `r${i + j}`;
        const created = await http(api.url, 'POST', W, { key: company.key, body: warehouse(name) });
        expect(created.status).toBe(201);
        const uuid: string = created.body.warehouse.uuid;
        for (let k = 1; k <= updates; k++) {
          const res = await http(api.url, 'PUT', `${W}/${uuid}`, {
            key: company.key,
            body: { warehouse: { name: `${name}-u${k}` } },
          });
          expect(res.status).toBe(200);
        }
        if (updates === UPDATES) {
          expect((await http(api.url, 'DELETE', `${W}/${uuid}`, { key: company.key })).status).toBe(200);
        }
        return uuid;
      }),
    );
    records.push(...batch);
  }
  return records;
}

/** Per record, the positions of the requests a path received, in arrival order. */
function sequences(receiver: Receiver, path: string): Map<string, number[]> {
  const byRecord = new Map<string, number[]>();
  for (const request of receiver.requests.filter((r) => r.path === path)) {
    const { record, index } = position(request);
    byRecord.set(record, [...(byRecord.get(record) ?? []), index]);
  }
  return byRecord;
}

const sorted = (values: number[]) => [...values].sort((a, b) => a - b);

describe('webhooks: ordered delivery per entity', () => {
  let api: TestApi;
  let receiver: Receiver;

  beforeAll(async () => {
    // The first retry is due 6.4 s or more after a failure (8 s − 20 % jitter).
    api = await startApi({ env: { ...FAST_WEBHOOKS, ...NO_RATE_LIMIT, WEBHOOKS_RETRY_SCHEDULE: '8s,8s' } });
    receiver = await new Receiver().start();
  });
  afterAll(async () => {
    await receiver.stop();
    await api.close();
  });

  it('delivers each record in commit order; a retrying record holds back only itself; without the option later events overtake', async () => {
    const acme = await createCompany(api, 'Ordered');
    const { endpoint } = await createEndpoint(api, acme, `${receiver.url}/ordered`);
    // Room for every record at once: what may hold a record back is then only its own earlier events.
    const set = await http(api.url, 'PUT', `${E}/${String(endpoint.uuid)}`, {
      key: acme.key,
      body: { webhook_endpoint: { ordering: 'entity', max_in_flight: 50 } },
    });
    expect(set.body.webhook_endpoint.ordering).toBe('entity');
    await createEndpoint(api, acme, `${receiver.url}/unordered`);

    const records = await writeRecords(api, acme, 50);
    // Every 2nd record's 2nd and 4th updates fail their first attempt, on both endpoints.
    const failing = new Set(records.filter((_, i) => i % 2 === 0));
    const failedOnce = new Set<string>();
    const failures: number[] = [];
    receiver.respond = (request) => {
      const { record, index } = position(request);
      const key = `${request.path} ${record} ${index}`;
      if (failing.has(record) && (index === 2 || index === 4) && !failedOnce.has(key)) {
        failedOnce.add(key);
        failures.push(request.at);
        return { status: 500 };
      }
      return { status: 200 };
    };

    const worker = await startWorker(api.config);
    try {
      const done = (path: string) => {
        const byRecord = sequences(receiver, path);
        return records.every((r) => new Set(byRecord.get(r) ?? []).size === UPDATES + 2);
      };
      await eventually(async () => done('/ordered') && done('/unordered'), 90_000);

      const ordered = sequences(receiver, '/ordered');
      for (const record of records) {
        const seen = ordered.get(record)!;
        // Arrival order is commit order; a failed attempt is followed by its own retry, not by the next event.
        expect(seen).toEqual(sorted(seen));
        expect(seen).toEqual(failing.has(record) ? [0, 1, 2, 2, 3, 4, 4, 5, 6] : [0, 1, 2, 3, 4, 5, 6]);
      }
      // Records that never fail are not held back by those retrying: all of them were delivered before
      // the first retry could be due.
      const firstRetryDue = Math.min(...failures) + 6400;
      const lastOfHealthy = Math.max(
        ...receiver.requests
          .filter((r) => r.path === '/ordered' && !failing.has(position(r).record))
          .map((r) => r.at),
      );
      expect(lastOfHealthy).toBeLessThan(firstRetryDue);

      // Without the option, as before: a failing update is overtaken by the record's later events.
      const unordered = sequences(receiver, '/unordered');
      for (const record of failing) {
        const seen = unordered.get(record)!;
        expect(seen.indexOf(3)).toBeLessThan(seen.lastIndexOf(2));
      }
    } finally {
      await worker.close();
    }
  }, 180_000);

  it("a resent event takes its place in its record's order: a later event of the record waits for it", async () => {
    const acme = await createCompany(api, 'Resent in order');
    const { endpoint } = await createEndpoint(api, acme, `${receiver.url}/resent`);
    const set = await http(api.url, 'PUT', `${E}/${String(endpoint.uuid)}`, {
      key: acme.key,
      body: { webhook_endpoint: { ordering: 'entity' } },
    });
    expect(set.status).toBe(200);
    const resent = () => receiver.requests.filter((r) => r.path === '/resent');
    let failedResend = false;
    receiver.respond = (request) => {
      // The resent create fails its first attempt, so it is pending (retrying) when the update commits.
      const again = request.path === '/resent' && position(request).index === 0 && resent().length > 1;
      if (again && !failedResend) {
        failedResend = true;
        return { status: 500 };
      }
      return { status: 200 };
    };
    const worker = await startWorker(api.config);
    try {
      const created = await http(api.url, 'POST', W, { key: acme.key, body: warehouse('resent') });
      expect(created.status).toBe(201);
      const uuid: string = created.body.warehouse.uuid;
      const [first] = await eventually(async () => (resent().length ? resent() : undefined));
      const eventId = String(first.headers['webhook-id']);
      const log = await eventually(async () => {
        const list = await http(api.url, 'GET', `${L}?event_id=${eventId}&status=successful`, {
          key: acme.key,
        });
        return list.body.webhook_request_logs[0] as { uuid: string } | undefined;
      });
      // Delivered, so its delivery row is gone: the resend makes it again, with its record and outbox position.
      expect((await http(api.url, 'POST', `${L}/${log.uuid}/resend`, { key: acme.key })).status).toBe(200);
      await eventually(async () => failedResend || undefined);

      const updated = await http(api.url, 'PUT', `${W}/${uuid}`, {
        key: acme.key,
        body: { warehouse: { name: 'resent-u1' } },
      });
      expect(updated.status).toBe(200);
      await eventually(async () => resent().some((r) => position(r).index === 1) || undefined, 30_000);
      // Original, failed resend, its retry, then the update: the update did not overtake the retrying resend.
      expect(resent().map((r) => position(r).index)).toEqual([0, 0, 0, 1]);
      expect(
        new Set(
          resent()
            .slice(0, 3)
            .map((r) => r.headers['webhook-id']),
        ),
      ).toEqual(new Set([eventId]));
    } finally {
      await worker.close();
    }
  }, 60_000);
});

describe('webhooks: ordered delivery survives a worker crash', () => {
  let api: TestApi;
  let receiver: Receiver;

  beforeAll(async () => {
    api = await startApi({ env: { ...FAST_WEBHOOKS, ...NO_RATE_LIMIT } });
    receiver = await new Receiver().start();
  });
  afterAll(async () => {
    await receiver.stop();
    await api.close();
  });

  it('a worker SIGKILLed while an ordered delivery is in flight never lets a later event of its record overtake it', async () => {
    assertBuilt();
    const acme = await createCompany(api, 'Crash');
    const { endpoint } = await createEndpoint(api, acme, `${receiver.url}/ordered`);
    await http(api.url, 'PUT', `${E}/${String(endpoint.uuid)}`, {
      key: acme.key,
      body: { webhook_endpoint: { ordering: 'entity' } },
    });
    // The creates' first attempts hang until the worker sending them is killed.
    let crashed = false;
    receiver.respond = (request) =>
      !crashed && position(request).index === 0 ? { status: 200, until: new Promise(() => undefined) } : {};
    const env = workerEnv(api);
    const first = runNode(WORKER, [], env);
    let second: ReturnType<typeof runNode> | undefined;
    try {
      const records = await writeRecords(api, acme, 5, 3);
      await eventually(async () => receiver.open.get('/ordered') === 5, 30_000);
      first.child.kill('SIGKILL');
      await first.exited;
      crashed = true;
      second = runNode(WORKER, [], env);
      await eventually(async () => {
        const byRecord = sequences(receiver, '/ordered');
        return records.every((r) => new Set(byRecord.get(r) ?? []).size === 4);
      }, 60_000);
      const byRecord = sequences(receiver, '/ordered');
      for (const record of records) expect(byRecord.get(record)).toEqual([0, 0, 1, 2, 3]);
      const ids = new Map<string, Set<string>>();
      for (const request of receiver.requests) {
        const envelope = JSON.parse(request.body);
        expect(request.headers['webhook-id']).toBe(envelope.id);
        const key = `${envelope.data.id} ${envelope.event} ${envelope.data.name}`;
        ids.set(key, (ids.get(key) ?? new Set()).add(envelope.id));
      }
      for (const set of ids.values()) expect(set.size).toBe(1);
    } finally {
      first.child.kill('SIGKILL');
      second?.child.kill('SIGTERM');
      await second?.exited;
    }
  }, 120_000);
});
