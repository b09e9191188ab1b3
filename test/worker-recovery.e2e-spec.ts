import { join } from 'node:path';
import { startOwnRedis } from './support/redis';
import { createCompany } from './support/accounts';
import { eventually, http } from './support/http';
import { CLI, Spawned, assertBuilt, runNode } from './support/processes';
import { Receiver } from './support/receiver';
import { REDIS_URL, TestApi, startApi } from './support/test-app';
import { createEndpoint, deliveredCount, sql, warehouse } from './support/webhooks';

const WORKER = join(CLI, '..', '..', '..', 'worker', 'src', 'main.js');
const W = '/inventory/int/v1/warehouses';

describe('worker recovery: a worker killed between claim and enqueue', () => {
  let api: TestApi;
  let receiver: Receiver;
  const children: Spawned[] = [];

  beforeAll(async () => {
    assertBuilt();
    api = await startApi();
    receiver = await new Receiver().start();
  });
  afterAll(async () => {
    for (const { child } of children) if (child.exitCode === null) child.kill('SIGKILL');
    await Promise.all(children.map((c) => c.exited));
    await receiver.stop();
    await api.close();
  });

  it('leaves no delivery stranded: another worker sends them within 15 s of being up', async () => {
    const company = await createCompany(api, 'Stranded');
    const { endpoint } = await createEndpoint(api, company, `${receiver.url}/hook`, ['warehouse.created']);
    // The first worker's Redis dies after it started: its relay claims the events in PostgreSQL, then cannot
    // enqueue them; killed then, it leaves exactly what a SIGKILL between claim and enqueue leaves.
    const { url: doomedUrl, server: doomed } = await startOwnRedis();
    try {
      const env = {
        NODE_ENV: 'test',
        LOG_LEVEL: 'info',
        DATABASE_URL: api.config.databaseUrl,
        QUEUE_PREFIX: api.config.queuePrefix,
        WEBHOOKS_POLL_INTERVAL: '200ms',
      };
      const first = runNode(WORKER, [], { ...env, REDIS_URL: doomedUrl });
      children.push(first);
      await eventually(async () => first.output().includes('Wharf worker ready'), 30_000);
      doomed.kill('SIGKILL');

      // Paused while the events are written, so that once resumed its relay claims them all in one batch.
      first.child.kill('SIGSTOP');
      const created: string[] = [];
      for (let i = 0; i < 20; i++) {
        const res = await http(api.url, 'POST', W, { key: company.key, body: warehouse(`stranded-${i}`) });
        expect(res.status).toBe(201);
        created.push(res.body.warehouse.uuid);
      }
      first.child.kill('SIGCONT');
      await eventually(async () => {
        const [row] = await sql(
          api,
          `SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_endpoint_uuid = $1`,
          [endpoint.uuid],
        );
        return row.n === 20;
      }, 30_000);
      first.child.kill('SIGKILL');
      await first.exited;
      expect(receiver.requests).toHaveLength(0);

      // The second worker runs with the default sweep settings.
      const second = runNode(WORKER, [], { ...env, REDIS_URL });
      children.push(second);
      await eventually(async () => second.output().includes('Wharf worker ready'), 30_000);
      const up = Date.now();
      const delivered = () => new Set(receiver.events().map((e) => e.data.id as string));
      await eventually(async () => delivered().size === 20, 60_000);
      expect([...delivered()].sort()).toEqual([...created].sort());
      const last = Math.max(...receiver.requests.map((r) => r.at));
      expect(last - up).toBeLessThanOrEqual(15_000);
      second.child.kill('SIGTERM');
      await second.exited;
      expect(second.output()).toMatch(/shutting down with \d+ deliveries in flight/);
      expect(second.output()).toMatch(/drained/);
    } finally {
      doomed.kill('SIGKILL');
    }
  }, 150_000);

  it('past SHUTDOWN_TIMEOUT_MS hands unfinished deliveries back to the queue: sent again, logged once', async () => {
    const company = await createCompany(api, 'Slow');
    const { endpoint } = await createEndpoint(api, company, `${receiver.url}/slow`, ['warehouse.created']);
    // The first five requests hang far beyond the shutdown timeout; later ones are answered at once.
    receiver.respond = (_request, index) => ({ status: 200, delayMs: index < 5 ? 60_000 : 0 });
    receiver.requests.length = 0;
    const env = {
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      DATABASE_URL: api.config.databaseUrl,
      REDIS_URL,
      QUEUE_PREFIX: api.config.queuePrefix,
      WEBHOOKS_TIMEOUT_MS: '120000',
      SHUTDOWN_TIMEOUT_MS: '1000',
    };
    const first = runNode(WORKER, [], env);
    children.push(first);
    await eventually(async () => first.output().includes('Wharf worker ready'), 30_000);
    for (let i = 0; i < 5; i++) {
      const res = await http(api.url, 'POST', W, { key: company.key, body: warehouse(`slow-${i}`) });
      expect(res.status).toBe(201);
    }
    await eventually(async () => receiver.requests.length === 5, 30_000);
    first.child.kill('SIGTERM');
    await first.exited;
    expect(first.output()).toMatch(/shutting down with 5 deliveries in flight/);
    expect(first.output()).toMatch(/shutdown timeout: handed 5 unfinished deliveries back to the queue/);

    const second = runNode(WORKER, [], env);
    children.push(second);
    await eventually(async () => {
      return (await deliveredCount(api, endpoint.uuid)) === 5;
    }, 60_000);
    expect(receiver.requests).toHaveLength(10);
    const logs = await sql(
      api,
      `SELECT webhook_delivery_uuid, count(*)::int AS n FROM webhook_request_logs WHERE webhook_endpoint_uuid = $1
       GROUP BY webhook_delivery_uuid`,
      [endpoint.uuid],
    );
    expect(logs.map((row) => row.n)).toEqual([1, 1, 1, 1, 1]);
    second.child.kill('SIGTERM');
    await second.exited;
  }, 150_000);
});
