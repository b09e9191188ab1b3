import { INestApplicationContext } from '@nestjs/common';
import { bullConnection } from '@wharf/core';
import { DELIVERY_QUEUE, DELIVER_BATCH, DeliveryBatchJobData } from '@wharf/webhooks';
import { Queue } from 'bullmq';
import { createCompany } from './support/accounts';
import { eventually, http } from './support/http';
import { CLI, assertBuilt, runNode } from './support/processes';
import { Receiver } from './support/receiver';
import { REDIS_URL, TestApi, deleteQueueKeys, startApi } from './support/test-app';
import { FAST_WEBHOOKS, createEndpoint, deliveredCount, sql, warehouse, workerEnv } from './support/webhooks';
import { startWorker } from './support/worker';
import { join } from 'node:path';

const W = '/inventory/int/v1/warehouses';
const WORKER = join(CLI, '..', '..', '..', 'worker', 'src', 'main.js');

async function createWarehouses(api: TestApi, key: string, count: number, prefix: string): Promise<string[]> {
  const uuids: string[] = [];
  for (let i = 0; i < count; i += 20) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(20, count - i) }, (_, j) =>
        http(api.url, 'POST', W, { key, body: warehouse(`${prefix}-${i + j}`) }),
      ),
    );
    for (const res of batch) {
      expect(res.status).toBe(201);
      uuids.push(res.body.warehouse.uuid);
    }
  }
  return uuids;
}

function createdUuids(receiver: Receiver): Set<string> {
  return new Set(
    receiver
      .events()
      .filter((e) => e.event === 'warehouse.created')
      .map((e) => e.data.id),
  );
}

describe('webhooks: nothing committed is lost', () => {
  let api: TestApi;
  let receiver: Receiver;

  beforeAll(async () => {
    api = await startApi({ env: { ...FAST_WEBHOOKS, WEBHOOKS_RETRY_SCHEDULE: '1s,1s,1s' } });
    receiver = await new Receiver().start();
  });
  afterAll(async () => {
    await receiver.stop();
    await api.close();
  });
  beforeEach(() => {
    receiver.requests.length = 0;
    receiver.respond = () => ({ status: 200 });
  });

  it('events committed while no worker runs, with Redis flushed, all arrive once a worker starts', async () => {
    const acme = await createCompany(api, 'Offline');
    await createEndpoint(api, acme, `${receiver.url}/hook`, ['warehouse.created']);
    const uuids = await createWarehouses(api, acme.key, 200, 'offline');
    await deleteQueueKeys(api.config);
    const worker = await startWorker(api.config);
    try {
      await eventually(async () => createdUuids(receiver).size === 200, 30_000);
      expect([...createdUuids(receiver)].sort()).toEqual([...uuids].sort());
    } finally {
      await worker.close();
    }
  });

  it('an event deleted before it was fanned out holds back nothing ordered after it: its place in the queue is dropped', async () => {
    const gone = await createCompany(api, 'Gone');
    await createWarehouses(api, gone.key, 1, 'gone');
    const acme = await createCompany(api, 'Ordered');
    const { endpoint } = await createEndpoint(api, acme, `${receiver.url}/ordered`, ['warehouse.created']);
    // In commit order per record: each delivery waits until every earlier event is fanned out.
    await sql(api, `UPDATE webhook_endpoints SET ordering = 'entity' WHERE uuid = $1`, [endpoint.uuid]);
    const uuids = await createWarehouses(api, acme.key, 20, 'ordered');
    // Deleted before any worker ran (as its company's deletion does), ahead of the others in the queue.
    await sql(api, `DELETE FROM webhook_events WHERE company_uuid = $1`, [gone.uuid]);
    const orphans = `SELECT count(*)::int AS n FROM webhook_events_undispatched u
      WHERE NOT EXISTS (SELECT 1 FROM webhook_events e WHERE e.id = u.id)`;
    expect(await sql(api, orphans)).toEqual([{ n: 1 }]);
    const worker = await startWorker(api.config);
    try {
      const received = () => receiver.requests.filter((r) => r.path === '/ordered');
      await eventually(async () => received().length === 20, 30_000);
      expect(received().map((r) => JSON.parse(r.body).data.id)).toEqual(expect.arrayContaining(uuids));
      expect(await sql(api, orphans)).toEqual([{ n: 0 }]);
    } finally {
      await worker.close();
    }
  });

  it('two workers running at once share a backlog: every event is fanned out and delivered exactly once', async () => {
    const acme = await createCompany(api, 'Pair');
    const { endpoint } = await createEndpoint(api, acme, `${receiver.url}/pair`, ['warehouse.created']);
    const uuids = await createWarehouses(api, acme.key, 300, 'pair');
    const workers = await Promise.all([startWorker(api.config), startWorker(api.config)]);
    try {
      const received = () => receiver.requests.filter((r) => r.path === '/pair');
      await eventually(async () => received().length >= 300, 30_000);
      await eventually(async () => (await deliveredCount(api, endpoint.uuid)) === 300);
      const ids = received().map((r) => r.headers['webhook-id']);
      expect(ids).toHaveLength(300);
      expect(new Set(ids).size).toBe(300);
      expect(
        received()
          .map((r) => JSON.parse(r.body).data.id)
          .sort(),
      ).toEqual([...uuids].sort());
      const [counts] = await sql(
        api,
        `SELECT (SELECT count(*)::int FROM webhook_deliveries WHERE webhook_endpoint_uuid = $1) AS deliveries,
                (SELECT count(*)::int FROM webhook_request_logs WHERE webhook_endpoint_uuid = $1) AS attempts`,
        [endpoint.uuid],
      );
      // Every delivery was delivered (and so deleted), each in one attempt.
      expect(counts).toEqual({ deliveries: 0, attempts: 300 });
    } finally {
      await Promise.all(workers.map((worker) => worker.close()));
    }
  });

  it('deliveries whose retry jobs Redis lost are re-enqueued by the sweeper from PostgreSQL', async () => {
    const acme = await createCompany(api, 'Amnesia');
    const { endpoint } = await createEndpoint(api, acme, `${receiver.url}/hook`, ['warehouse.created']);
    receiver.respond = () => ({ status: 503 });
    let worker: INestApplicationContext = await startWorker(api.config);
    const uuids = await createWarehouses(api, acme.key, 20, 'amnesia');
    await eventually(async () => {
      const [row] = await sql(
        api,
        `SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_endpoint_uuid = $1 AND attempts >= 1`,
        [endpoint.uuid],
      );
      return row.n === 20;
    }, 15_000);
    await worker.close();
    await deleteQueueKeys(api.config); // the delayed retry jobs are gone
    receiver.requests.length = 0;
    receiver.respond = () => ({ status: 200 });
    worker = await startWorker(api.config);
    try {
      await eventually(async () => createdUuids(receiver).size === 20, 30_000);
      expect([...createdUuids(receiver)].sort()).toEqual([...uuids].sort());
      await eventually(async () => {
        const [left] = await sql(
          api,
          `SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_endpoint_uuid = $1 AND status <> 'successful'`,
          [endpoint.uuid],
        );
        return left.n === 0;
      });
      expect(await deliveredCount(api, endpoint.uuid)).toBe(20);
    } finally {
      await worker.close();
    }
  });

  it('a worker killed with SIGKILL mid-delivery loses nothing; duplicates carry the same webhook-id', async () => {
    assertBuilt();
    const acme = await createCompany(api, 'Crash');
    await createEndpoint(api, acme, `${receiver.url}/hook`, ['warehouse.created']);
    receiver.respond = () => ({ status: 200, delayMs: 150 });
    const env = workerEnv(api, { WEBHOOKS_CONCURRENCY: '5' });
    const first = runNode(WORKER, [], env);
    const uuids = await createWarehouses(api, acme.key, 100, 'crash');
    await eventually(async () => receiver.requests.length >= 10, 30_000);
    first.child.kill('SIGKILL');
    await first.exited;
    const second = runNode(WORKER, [], env);
    try {
      await eventually(async () => createdUuids(receiver).size === 100, 60_000);
      expect([...createdUuids(receiver)].sort()).toEqual([...uuids].sort());
      const idsByRecord = new Map<string, Set<string>>();
      for (const request of receiver.requests) {
        const envelope = JSON.parse(request.body);
        expect(request.headers['webhook-id']).toBe(envelope.id);
        const ids = idsByRecord.get(envelope.data.id) ?? new Set<string>();
        ids.add(envelope.id);
        idsByRecord.set(envelope.data.id, ids);
      }
      for (const ids of idsByRecord.values()) expect(ids.size).toBe(1);
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
  }, 120_000);

  it('a job carrying several first attempts records each as it is answered; SIGKILL mid-batch loses none and resends none recorded', async () => {
    assertBuilt();
    const acme = await createCompany(api, 'Batch');
    const { endpoint } = await createEndpoint(api, acme, `${receiver.url}/hook`, ['warehouse.created']);
    // Committed while no worker runs: the first admission takes max_in_flight (10) of them at once.
    const uuids = await createWarehouses(api, acme.key, 30, 'batch');
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    // Three answers at once, the rest held open until the first worker is dead.
    receiver.respond = (_request, index) => (index < 3 ? { status: 200 } : { status: 200, until: held });
    const env = workerEnv(api);
    const logged = async () =>
      (
        await sql(
          api,
          `SELECT count(*)::int AS n FROM webhook_request_logs WHERE webhook_endpoint_uuid = $1`,
          [endpoint.uuid],
        )
      )[0].n as number;
    const first = runNode(WORKER, [], env);
    const queue = new Queue(DELIVERY_QUEUE, {
      connection: bullConnection(REDIS_URL),
      prefix: api.config.queuePrefix,
    });
    let second: ReturnType<typeof runNode> | undefined;
    try {
      // The three answered are durable while the other seven of their job are still being sent (and the
      // successors admitted into the three freed slots may be too).
      await eventually(async () => receiver.requests.length >= 10 && (await logged()) === 3, 30_000);
      first.child.kill('SIGKILL');
      await first.exited;
      const sentBeforeKill = receiver.requests.length;
      // The first admission's ten are one job, still active in Redis (the successors' may be another).
      const batches = (await queue.getJobs(['active']))
        .filter((job) => job.name === DELIVER_BATCH)
        .map((job) => (job.data as DeliveryBatchJobData).deliveries.length);
      expect(Math.max(0, ...batches)).toBe(10);
      release();
      second = runNode(WORKER, [], env);
      await eventually(async () => createdUuids(receiver).size === 30, 60_000);
      expect([...createdUuids(receiver)].sort()).toEqual([...uuids].sort());
      await eventually(async () => (await logged()) === 30, 30_000);
      // One attempt record per delivery: the stalled batch re-ran only the seven never recorded.
      // Each delivered (so deleted), each with one successful attempt logged.
      const rows = await sql(
        api,
        `SELECT l.webhook_delivery_uuid, count(*)::int AS attempts, bool_and(l.status = 'successful') AS ok,
           (SELECT count(*)::int FROM webhook_deliveries d WHERE d.uuid = l.webhook_delivery_uuid) AS stored
         FROM webhook_request_logs l WHERE l.webhook_endpoint_uuid = $1 GROUP BY l.webhook_delivery_uuid`,
        [endpoint.uuid],
      );
      expect(rows).toHaveLength(30);
      expect(rows.every((row) => row.ok && row.attempts === 1 && row.stored === 0)).toBe(true);
      const ids = receiver.requests.map((request) => String(request.headers['webhook-id']));
      // Every request cut off by the kill is sent again, with the same webhook-id; the three recorded are not.
      expect(ids).toHaveLength(sentBeforeKill + 27);
      expect(new Set(ids).size).toBe(30);
    } finally {
      release();
      await queue.close();
      first.child.kill('SIGKILL');
      second?.child.kill('SIGTERM');
      await second?.exited;
    }
  }, 120_000);

  it('a batch job Redis lost with its worker is rebuilt by the sweeper from PostgreSQL: all arrive, one webhook-id each', async () => {
    assertBuilt();
    const acme = await createCompany(api, 'BatchAmnesia');
    await createEndpoint(api, acme, `${receiver.url}/hook`, ['warehouse.created']);
    const uuids = await createWarehouses(api, acme.key, 25, 'batch-amnesia');
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    receiver.respond = () => ({ status: 200, until: held });
    const env = workerEnv(api);
    const first = runNode(WORKER, [], env);
    let second: ReturnType<typeof runNode> | undefined;
    try {
      // The first admission's ten are in flight in one job; then the worker dies and Redis forgets it.
      await eventually(async () => receiver.requests.length === 10, 30_000);
      first.child.kill('SIGKILL');
      await first.exited;
      await deleteQueueKeys(api.config);
      release();
      second = runNode(WORKER, [], env);
      await eventually(async () => createdUuids(receiver).size === 25, 60_000);
      expect([...createdUuids(receiver)].sort()).toEqual([...uuids].sort());
      const ids = new Map<string, Set<string>>();
      for (const request of receiver.requests) {
        const envelope = JSON.parse(request.body);
        expect(request.headers['webhook-id']).toBe(envelope.id);
        ids.set(envelope.data.id, (ids.get(envelope.data.id) ?? new Set()).add(envelope.id));
      }
      for (const set of ids.values()) expect(set.size).toBe(1);
    } finally {
      release();
      first.child.kill('SIGKILL');
      second?.child.kill('SIGTERM');
      await second?.exited;
    }
  }, 120_000);
});
