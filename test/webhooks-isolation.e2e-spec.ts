import { join } from 'node:path';
import { INestApplicationContext } from '@nestjs/common';
import { QUEUE_WINDOW_CAPS } from '@wharf/webhooks/worker';
import { TestCompany, createCompany } from './support/accounts';
import { eventually, http } from './support/http';
import { CLI, assertBuilt, runNode } from './support/processes';
import { Receiver } from './support/receiver';
import { TestApi, startApi } from './support/test-app';
import { FAST_WEBHOOKS, createEndpoint, sql, warehouse, workerEnv } from './support/webhooks';
import { startWorker } from './support/worker';

const W = '/inventory/int/v1/warehouses';
const E = '/int/v1/webhook-endpoints';
/** These suites write hundreds of records a minute from one address. */
const NO_RATE_LIMIT = { RATE_LIMIT_PER_MINUTE: '100000' };
const WORKER = join(CLI, '..', '..', '..', 'worker', 'src', 'main.js');

async function createWarehouses(api: TestApi, company: TestCompany, count: number): Promise<string[]> {
  const uuids: string[] = [];
  for (let i = 0; i < count; i += 25) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(25, count - i) }, (_, j) =>
        http(api.url, 'POST', W, { key: company.key, body: warehouse(`${company.name}-${i + j}`) }),
      ),
    );
    for (const res of batch) {
      expect(res.status).toBe(201);
      uuids.push(res.body.warehouse.uuid);
    }
  }
  return uuids;
}

async function setEndpoint(
  api: TestApi,
  company: TestCompany,
  uuid: unknown,
  fields: Record<string, unknown>,
) {
  return http(api.url, 'PUT', `${E}/${String(uuid)}`, {
    key: company.key,
    body: { webhook_endpoint: fields },
  });
}

/** A gate the test opens: requests answered with `until: gate.opened` stay open until then. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('webhooks: one endpoint never delays another', () => {
  let api: TestApi;
  let receiver: Receiver;

  beforeAll(async () => {
    // No attempt times out while the test runs: nothing but isolation can let B's deliveries through.
    api = await startApi({ env: { ...FAST_WEBHOOKS, ...NO_RATE_LIMIT, WEBHOOKS_TIMEOUT_MS: '600000' } });
    receiver = await new Receiver().start();
  });
  afterAll(async () => {
    await receiver.stop();
    await api.close();
  });

  it("delivers another company's and the same company's other endpoint while A's receiver holds every request", async () => {
    const a = await createCompany(api, 'Held');
    const b = await createCompany(api, 'Other');
    const held = gate();
    receiver.respond = (request) =>
      request.path === '/a' ? { status: 200, until: held.opened } : { status: 200 };
    const { endpoint: slow } = await createEndpoint(api, a, `${receiver.url}/a`, ['warehouse.created']);
    await createEndpoint(api, a, `${receiver.url}/a2`, ['warehouse.updated']);
    await createEndpoint(api, b, `${receiver.url}/b`, ['warehouse.created']);
    const worker = await startWorker(api.config);
    try {
      const aWarehouses = await createWarehouses(api, a, 300);
      await eventually(async () => receiver.open.get('/a') === 10, 30_000);

      await createWarehouses(api, b, 20);
      await eventually(async () => receiver.events('/b').length === 20, 30_000);
      expect(receiver.open.get('/a')).toBe(10);
      expect(receiver.events('/a')).toHaveLength(10);

      await Promise.all(
        aWarehouses
          .slice(0, 20)
          .map((uuid) =>
            http(api.url, 'PUT', `${W}/${uuid}`, { key: a.key, body: { warehouse: { capacity: 99 } } }),
          ),
      );
      await eventually(async () => receiver.events('/a2').length === 20, 30_000);
      expect(receiver.open.get('/a')).toBe(10);
      expect(receiver.events('/a')).toHaveLength(10);

      const queue = await http(api.url, 'GET', `${E}/${String(slow.uuid)}/queue`, { key: a.key });
      expect(queue.status).toBe(200);
      expect(queue.body.webhook_endpoint_queue).toEqual({
        webhook_endpoint_uuid: slow.uuid,
        in_flight: 10,
        waiting: 290,
        retrying: 0,
        max_in_flight: 10,
        throttled: false,
        throttled_reason: null,
      });
      expect((await http(api.url, 'GET', `${E}/${String(slow.uuid)}/queue`, { key: b.key })).status).toBe(
        404,
      );

      held.open();
      await eventually(async () => new Set(receiver.events('/a').map((e) => e.id)).size === 300, 60_000);
      expect(receiver.maxOpen.get('/a')).toBe(10);
    } finally {
      held.open();
      await worker.close();
    }
  }, 180_000);
});

describe('webhooks: fair service across endpoints', () => {
  let api: TestApi;
  let receiver: Receiver;

  beforeAll(async () => {
    api = await startApi({ env: { ...FAST_WEBHOOKS, ...NO_RATE_LIMIT } });
    receiver = await new Receiver().start();
    receiver.respond = () => ({ status: 200, delayMs: 100 });
  });
  afterAll(async () => {
    await receiver.stop();
    await api.close();
  });

  it('drains backlogs of 500, 50 and 5 round-robin: the smallest finishes before the largest is half done', async () => {
    const companies = await Promise.all(['Big', 'Mid', 'Small'].map((name) => createCompany(api, name)));
    const paths = ['/big', '/mid', '/small'];
    for (const [i, company] of companies.entries()) {
      await createEndpoint(api, company, `${receiver.url}${paths[i]}`, ['warehouse.created']);
    }
    // Committed in this order while no worker runs: in one FIFO queue the small backlog would go last.
    await createWarehouses(api, companies[0], 500);
    await createWarehouses(api, companies[1], 50);
    await createWarehouses(api, companies[2], 5);
    const worker = await startWorker(api.config);
    try {
      await eventually(async () => receiver.events('/big').length === 500, 90_000);
      const times = (path: string) => receiver.requests.filter((r) => r.path === path).map((r) => r.at);
      const small = times('/small');
      expect(small).toHaveLength(5);
      expect(times('/mid')).toHaveLength(50);
      const big = times('/big');
      expect(Math.max(...small)).toBeLessThan(big[249]);
    } finally {
      await worker.close();
    }
  }, 180_000);
});

describe('webhooks: per-endpoint limits, held across two workers', () => {
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

  it('sends no more than rate_limit_per_second in any second, across two workers', async () => {
    assertBuilt();
    const acme = await createCompany(api, 'Limited');
    const { endpoint } = await createEndpoint(api, acme, `${receiver.url}/limited`, ['warehouse.created']);
    const set = await setEndpoint(api, acme, endpoint.uuid, { rate_limit_per_second: 20 });
    expect(set.status).toBe(200);
    expect(set.body.webhook_endpoint.rate_limit_per_second).toBe(20);
    // Committed first, and the workers in their own processes. The sends are timed by the workers themselves
    // (each attempt's sent_at in the request log): arrival times add the wire's and this process's jitter.
    await createWarehouses(api, acme, 200);
    const workers = [runNode(WORKER, [], workerEnv(api)), runNode(WORKER, [], workerEnv(api))];
    try {
      await eventually(async () => receiver.events('/limited').length === 200, 60_000);
      // An attempt is logged after its answer: read the log once all 200 are in it.
      const logged = await eventually(async () => {
        const rows = await sql(
          api,
          `SELECT extract(epoch FROM sent_at) * 1000 AS at FROM webhook_request_logs
           WHERE webhook_endpoint_uuid = $1 ORDER BY sent_at`,
          [endpoint.uuid],
        );
        return rows.length === 200 ? rows : undefined;
      }, 30_000);
      const at = logged.map((row: { at: string }) => Number(row.at));
      let busiest = 0;
      for (let i = 0; i < at.length; i++) {
        busiest = Math.max(busiest, at.filter((t) => t >= at[i] && t < at[i] + 1000).length);
      }
      expect(busiest).toBeLessThanOrEqual(20);
      // The limit was reached, so the run was actually throttled by it.
      expect(busiest).toBeGreaterThanOrEqual(15);
    } finally {
      for (const worker of workers) worker.child.kill('SIGTERM');
      await Promise.all(workers.map((worker) => worker.exited));
    }
  }, 120_000);

  it('two workers drain an endpoint of max_in_flight 5 that answers in 20 ms: its queue within its caps, never 6 open', async () => {
    assertBuilt();
    const acme = await createCompany(api, 'Fast');
    const { endpoint } = await createEndpoint(api, acme, `${receiver.url}/fast`, ['warehouse.created']);
    expect((await setEndpoint(api, acme, endpoint.uuid, { max_in_flight: 5 })).status).toBe(200);
    receiver.respond = () => ({ status: 200, delayMs: 20 });
    await createWarehouses(api, acme, 300);
    const admitted = async () =>
      (
        await sql(
          api,
          `SELECT count(*)::int AS n FROM webhook_deliveries
           WHERE webhook_endpoint_uuid = $1 AND status = 'admitted'`,
          [endpoint.uuid],
        )
      )[0].n as number;
    const workers = [runNode(WORKER, [], workerEnv(api)), runNode(WORKER, [], workerEnv(api))];
    let mostAdmitted = 0;
    try {
      await eventually(
        async () => {
          mostAdmitted = Math.max(mostAdmitted, await admitted());
          return new Set(receiver.events('/fast').map((e) => e.id)).size === 300;
        },
        60_000,
        20,
      );
      // The queue held more than a cap's worth (a fast endpoint's is refilled to QUEUE_WINDOW_CAPS caps, which two
      // workers refilling from the same count can at most double), so the leases, not admission, kept the
      // sends to five.
      expect(mostAdmitted).toBeGreaterThan(5);
      expect(mostAdmitted).toBeLessThanOrEqual(2 * QUEUE_WINDOW_CAPS * 5);
      expect(receiver.maxOpen.get('/fast')).toBe(5);
    } finally {
      for (const worker of workers) worker.child.kill('SIGTERM');
      await Promise.all(workers.map((worker) => worker.exited));
    }
  }, 120_000);
});

describe('webhooks: slow endpoints are throttled', () => {
  let api: TestApi;
  let receiver: Receiver;
  let worker: INestApplicationContext;

  beforeAll(async () => {
    api = await startApi({
      env: {
        ...FAST_WEBHOOKS,
        ...NO_RATE_LIMIT,
        WEBHOOKS_TIMEOUT_MS: '300',
        WEBHOOKS_RETRY_SCHEDULE: '200ms,200ms,200ms,200ms,200ms,200ms,200ms,200ms',
      },
    });
    worker = await startWorker(api.config);
    receiver = await new Receiver().start();
  });
  afterAll(async () => {
    await worker.close();
    await receiver.stop();
    await api.close();
  });

  it('throttles an endpoint whose attempts keep timing out, shows it, and recovers after one success', async () => {
    const acme = await createCompany(api, 'Slow');
    const { endpoint } = await createEndpoint(api, acme, `${receiver.url}/slow`, ['warehouse.created']);
    let slow = true;
    receiver.respond = () => (slow ? { status: 200, delayMs: 1000 } : { status: 200 });
    await createWarehouses(api, acme, 5);
    const get = async () =>
      (await http(api.url, 'GET', `${E}/${String(endpoint.uuid)}`, { key: acme.key })).body;
    const throttled = await eventually(async () => {
      const body = await get();
      return body.webhook_endpoint.throttled ? body.webhook_endpoint : undefined;
    }, 30_000);
    expect(throttled.throttled_reason).toMatch(/attempts in a row timed out/);
    expect(throttled.status).toBe('enabled');
    const queue = await http(api.url, 'GET', `${E}/${String(endpoint.uuid)}/queue`, { key: acme.key });
    expect(queue.body.webhook_endpoint_queue.throttled).toBe(true);
    // Timeouts are failures: they start the window that disables an endpoint.
    const [health] = await sql(api, 'SELECT failing_since FROM webhook_endpoints WHERE uuid = $1', [
      endpoint.uuid,
    ]);
    expect(health.failing_since).toBeInstanceOf(Date);

    slow = false;
    const recovered = await eventually(async () => {
      const body = await get();
      return body.webhook_endpoint.throttled ? undefined : body.webhook_endpoint;
    }, 30_000);
    expect(recovered.throttled_reason).toBeNull();
    const [successes] = await sql(
      api,
      `SELECT count(*)::int AS n FROM webhook_request_logs WHERE webhook_endpoint_uuid = $1 AND status = 'successful'`,
      [endpoint.uuid],
    );
    expect(successes.n).toBeGreaterThanOrEqual(1);
  }, 90_000);
});

describe('webhook endpoints: delivery settings', () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await startApi({ env: { WEBHOOKS_ENDPOINT_CONCURRENCY: '7' } });
  });
  afterAll(async () => {
    await api.close();
  });

  it('defaults max_in_flight from WEBHOOKS_ENDPOINT_CONCURRENCY, reads and writes the three fields', async () => {
    const acme = await createCompany(api, 'Settings');
    const created = await http(api.url, 'POST', E, {
      key: acme.key,
      body: { webhook_endpoint: { url: 'http://127.0.0.1:9/hook' } },
    });
    expect(created.status).toBe(201);
    expect(created.body.webhook_endpoint).toMatchObject({
      max_in_flight: 7,
      rate_limit_per_second: null,
      ordering: 'none',
      throttled: false,
      throttled_reason: null,
    });
    expect(created.body.webhook_endpoint).not.toHaveProperty('consecutive_timeouts');
    const uuid = created.body.webhook_endpoint.uuid;
    const updated = await setEndpoint(api, acme, uuid, {
      max_in_flight: 100,
      rate_limit_per_second: 5,
      ordering: 'entity',
    });
    expect(updated.status).toBe(200);
    expect(updated.body.webhook_endpoint).toMatchObject({
      max_in_flight: 100,
      rate_limit_per_second: 5,
      ordering: 'entity',
    });
    const unlimited = await setEndpoint(api, acme, uuid, { rate_limit_per_second: null });
    expect(unlimited.body.webhook_endpoint.rate_limit_per_second).toBeNull();
    const withOrdering = await http(api.url, 'POST', E, {
      key: acme.key,
      body: { webhook_endpoint: { url: 'http://127.0.0.1:9/b', ordering: 'entity', max_in_flight: 1 } },
    });
    expect(withOrdering.body.webhook_endpoint).toMatchObject({ ordering: 'entity', max_in_flight: 1 });
  });

  it.each([
    ['max_in_flight', 0],
    ['max_in_flight', 101],
    ['max_in_flight', 2.5],
    ['max_in_flight', '10'],
    ['max_in_flight', null],
    ['rate_limit_per_second', 0],
    ['rate_limit_per_second', 'fast'],
    ['ordering', 'fifo'],
    ['ordering', null],
  ])('refuses %s = %j with a 422 pointing at it, and changes nothing', async (field, value) => {
    const acme = await createCompany(api, `Bad-${field}`);
    const { endpoint } = await createEndpoint(api, acme, 'http://127.0.0.1:9/hook');
    const res = await setEndpoint(api, acme, endpoint.uuid, { [field]: value });
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: { source: { pointer: string } }) => e.source.pointer)).toContain(
      `/data/attributes/${field}`,
    );
    const after = await http(api.url, 'GET', `${E}/${String(endpoint.uuid)}`, { key: acme.key });
    expect(after.body.webhook_endpoint).toMatchObject({
      max_in_flight: 7,
      rate_limit_per_second: null,
      ordering: 'none',
    });
  });

  it('keeps throttled read-only', async () => {
    const acme = await createCompany(api, 'ReadOnly');
    const { endpoint } = await createEndpoint(api, acme, 'http://127.0.0.1:9/hook');
    await setEndpoint(api, acme, endpoint.uuid, { throttled: true, throttled_reason: 'mine' });
    const after = await http(api.url, 'GET', `${E}/${String(endpoint.uuid)}`, { key: acme.key });
    expect(after.body.webhook_endpoint).toMatchObject({ throttled: false, throttled_reason: null });
  });
});
