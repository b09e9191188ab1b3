import { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { createCompany, TestCompany } from './support/accounts';
import { eventually, http } from './support/http';
import { CLI, Spawned, assertBuilt, runNode } from './support/processes';
import { Receiver } from './support/receiver';
import { startOwnRedis } from './support/redis';
import { TestApi, startApi } from './support/test-app';
import { deliveredCount, warehouse, workerEnv } from './support/webhooks';

const WORKER = join(CLI, '..', '..', '..', 'worker', 'src', 'main.js');
const W = '/inventory/int/v1/warehouses';

interface LogLine {
  level: number;
  msg: string;
  connection?: string;
  redis?: 'down' | 'up';
  [field: string]: unknown;
}

/** The process's output, each line parsed as the JSON log line it must be (`raw` holds those that are not). */
function logLines(output: string): { lines: LogLine[]; raw: string[] } {
  const lines: LogLine[] = [];
  const raw: string[] = [];
  for (const line of output.split('\n').filter(Boolean)) {
    try {
      lines.push(JSON.parse(line) as LogLine);
    } catch {
      raw.push(line);
    }
  }
  return { lines, raw };
}

/** How many lines each connection logged that it went `state` (down or up). */
function connectionLines(output: string, state: 'down' | 'up'): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of logLines(output).lines)
    if (line.connection && line.redis === state)
      counts.set(line.connection, (counts.get(line.connection) ?? 0) + 1);
  return counts;
}

/**
 * A worker on a Redis of the test's own, which the test kills and starts again on the same port, empty (it
 * keeps nothing on disk). Every line the worker prints is counted.
 */
describe('Redis outages, as the worker logs them', () => {
  let api: TestApi;
  let receiver: Receiver;
  let redis: ChildProcess;
  let redisUrl: string;
  let worker: Spawned;
  let acme: TestCompany;
  const delivered = (path: string) => new Set(receiver.events(path).map((e) => e.data.id as string));

  /**
   * Kills Redis and starts it again, empty, once the worker's outage monitor has seen it gone (so its
   * connections have been failing to reconnect for a while); resolves once the monitor saw it back.
   */
  const restartRedis = async () => {
    const outages = (state: string) => worker.output().split(`redis ${state}`).length - 1;
    const [down, up] = [outages('unavailable'), outages('available again')];
    redis.kill('SIGKILL');
    await eventually(async () => outages('unavailable') > down, 30_000);
    redis = (await startOwnRedis(Number(new URL(redisUrl).port))).server;
    await eventually(async () => outages('available again') > up, 30_000);
  };

  /** No job is being processed: those of the deliveries made so far are finished, in Redis too. */
  const noJobActive = async () => {
    const client = new Redis(redisUrl, { lazyConnect: true, retryStrategy: () => null });
    try {
      await client.connect();
      return (await client.llen(`${api.config.queuePrefix}:webhook-deliveries:active`)) === 0;
    } finally {
      client.disconnect();
    }
  };

  const write = async (company: TestCompany, name: string) => {
    const res = await http(api.url, 'POST', W, { key: company.key, body: warehouse(name) });
    expect(res.status).toBe(201);
    return res.body.warehouse.uuid as string;
  };

  const endpoint = async (company: TestCompany, path: string, extra: Record<string, unknown>) => {
    const res = await http(api.url, 'POST', '/int/v1/webhook-endpoints', {
      key: company.key,
      body: { webhook_endpoint: { url: `${receiver.url}${path}`, events: ['warehouse.created'], ...extra } },
    });
    expect(res.status).toBe(201);
    return res.body.webhook_endpoint.uuid as string;
  };

  beforeAll(async () => {
    assertBuilt();
    api = await startApi();
    receiver = await new Receiver().start();
    ({ url: redisUrl, server: redis } = await startOwnRedis());
    acme = await createCompany(api, 'Outage logs');
    // A rate limit: the worker opens its rate limiter's connection as well as its send leases'.
    await endpoint(acme, '/hook', { rate_limit_per_second: 100 });
    worker = runNode(WORKER, [], {
      ...workerEnv(api, { REDIS_URL: redisUrl, LOG_LEVEL: 'info' }),
      WEBHOOKS_TIMEOUT_MS: '60000',
    });
    await eventually(async () => worker.output().includes('Wharf worker ready'), 30_000);
  }, 60_000);

  afterAll(async () => {
    worker?.child.kill('SIGTERM');
    await worker?.exited;
    redis?.kill('SIGKILL');
    await receiver?.stop();
    await api?.close();
  });

  it('each connection logs once that it was lost and once that it is back, and nothing else is printed', async () => {
    const first = await Promise.all([1, 2, 3].map((i) => write(acme, `before-${i}`)));
    await eventually(async () => first.every((id) => delivered('/hook').has(id)) && noJobActive(), 30_000);

    await restartRedis();
    // Counted once a write made after Redis came back is delivered.
    const sentinel = await write(acme, 'after');
    await eventually(async () => delivered('/hook').has(sentinel), 30_000);

    const { raw } = logLines(worker.output());
    expect(raw).toEqual([]);
    const lost = connectionLines(worker.output(), 'down');
    const back = connectionLines(worker.output(), 'up');
    // Those connections of the worker's: its queue's, its BullMQ worker's two, the send leases',
    // the rate limiter's, the outage monitor's probe.
    const names = [...lost.keys()].map((connection) => connection.split('#')[0]).sort();
    expect(names).toEqual(
      expect.arrayContaining(['endpoint-rate-limiter', 'health', 'queue', 'queue-blocking', 'send-leases']),
    );
    expect([...back.keys()].sort()).toEqual([...lost.keys()].sort());
    for (const [connection, n] of [...lost, ...back]) expect({ connection, n }).toEqual({ connection, n: 1 });
  }, 120_000);

  it('Redis back empty under jobs in flight: no error, one warning of what was queued again, every event delivered', async () => {
    const held = await createCompany(api, 'Held');
    const endpointUuid = await endpoint(held, '/held', { max_in_flight: 3 });
    let release!: () => void;
    const answers = new Promise((resolve) => (release = () => resolve(undefined)));
    receiver.respond = (request) => (request.path === '/held' ? { status: 200, until: answers } : {});
    const from = worker.output().length;
    const ids = await Promise.all([1, 2, 3, 4, 5, 6, 7, 8].map((i) => write(held, `held-${i}`)));
    // Three sends wait for their answers, the next deliveries wait in the queue for a send lease.
    await eventually(async () => receiver.open.get('/held') === 3, 30_000);

    await restartRedis();
    release();
    await eventually(async () => (await deliveredCount(api, endpointUuid)) === ids.length, 60_000);
    expect([...delivered('/held')].sort()).toEqual([...ids].sort());
    const output = () => logLines(worker.output().slice(from)).lines;
    const errors = () => output().filter((line) => line.level >= 50);
    // Counted once a write made after the jobs Redis lost finished is delivered.
    const sentinel = await write(held, 'sentinel');
    await eventually(async () => delivered('/held').has(sentinel), 30_000);
    expect(errors()).toEqual([]);

    const recovered = () => output().filter((line) => /^recovered deliveries/.test(line.msg));
    await eventually(async () => recovered().length > 0, 60_000);
    // Counted again once a write made after the recovery was logged is delivered.
    const last = await write(held, 'last');
    await eventually(async () => delivered('/held').has(last), 30_000);
    expect(errors()).toEqual([]);
    expect(recovered()).toEqual([expect.objectContaining({ level: 40 })]);
    // What was lost and queued again: the jobs of the sends in flight (BullMQ found them gone when they
    // finished) and the deliveries whose jobs waited in the queue (the sweeper queued them again).
    const [{ lostJobs, requeued, deliveries }] = recovered();
    expect(lostJobs).toBeGreaterThan(0);
    expect(requeued).toBeGreaterThan(0);
    expect(deliveries).toHaveLength(requeued as number);
  }, 180_000);
});
