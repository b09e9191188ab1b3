import 'reflect-metadata';
import { ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Queue, Worker } from 'bullmq';
import { bullConnection, startTracing, stopTracing } from '@wharf/core';
import { AccountsService } from '@wharf/accounts';
import { WebhookEndpointsService } from '@wharf/webhooks';
import { DataSource } from 'typeorm';
import { Redis } from 'ioredis';
import { Agent, request } from 'undici';
import {
  benchConfig,
  forkScript,
  median,
  percentile,
  sleep,
  startBenchApi,
  startProcess,
  stopProcess,
  withBenchDatabase,
} from './bench-support';
import { brokerRounds } from './broker-rounds';
import { filteredEndpoints } from './filtered-endpoints';
import { countPostgresOf, cpuPerItem, readCpu } from './process-cpu';

const N = Number(process.env.BENCH_EVENTS ?? 20_000);
const RATE = Number(process.env.BENCH_RATE ?? 500);
const RATE_SECONDS = Number(process.env.BENCH_RATE_SECONDS ?? 10);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 50);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const NEIGHBOUR_BACKLOG = Number(process.env.BENCH_NEIGHBOUR_BACKLOG ?? 5_000);
const NEIGHBOUR_DELAY_MS = Number(process.env.BENCH_NEIGHBOUR_DELAY_MS ?? 5_000);
/** Set: the filter comparison alone (filtered-endpoints.ts), with this many of the endpoints filtered. */
const FILTERED_ENDPOINTS = Number(process.env.BENCH_FILTERED_ENDPOINTS ?? 0);
/** The broker rounds (broker-rounds.ts): `all` after the http ones (default), `only` them, or `none`. */
const BROKERS = process.env.BENCH_BROKERS ?? 'all';
const BROKER_EVENTS = Number(process.env.BENCH_BROKER_EVENTS ?? 5_000);

interface Measured {
  perSecond: number;
  /** Microseconds of CPU per item, by process. */
  cpu: Record<string, number>;
}

const round3 = (value: number) => Number(value.toFixed(3));

async function addJobs(queue: Queue, jobs: number, data: (i: number) => object) {
  for (let i = 0; i < jobs; i += 1000) {
    await queue.addBulk(
      Array.from({ length: Math.min(1000, jobs - i) }, (_, j) => ({
        name: 'job',
        data: data(i + j),
        opts: { removeOnComplete: true, removeOnFail: true },
      })),
    );
  }
}

/** The reference: how fast BullMQ alone moves no-op jobs through the same Redis with the same concurrency. */
async function rawBullmqNoop(redisUrl: string, prefix: string, jobs: number, redis: Redis) {
  const connection = bullConnection(redisUrl);
  const queue = new Queue('noop', { connection, prefix });
  await addJobs(queue, jobs, (i) => ({ i }));
  let done = 0;
  const before = await readCpu(redis, []);
  const started = performance.now();
  await new Promise<void>((resolve) => {
    const worker = new Worker('noop', async () => undefined, {
      connection,
      prefix,
      concurrency: CONCURRENCY,
    });
    worker.on('completed', () => {
      if (++done === jobs) void worker.close().then(resolve);
    });
  });
  const seconds = (performance.now() - started) / 1000;
  const cpu = cpuPerItem(before, await readCpu(redis, []), jobs, 'bench_worker');
  await queue.obliterate({ force: true });
  await queue.close();
  return { perSecond: jobs / seconds, cpu };
}

/**
 * The floor of any pipeline with one BullMQ job per delivery: a worker process that takes each job and POSTs
 * its body (a real envelope) to the same receiver, and does nothing else.
 */
async function bullmqHttpFloor(
  redisUrl: string,
  prefix: string,
  jobs: number,
  redis: Redis,
  body: string,
  receiver: { target: string; received: () => number },
) {
  const queue = new Queue('floor', { connection: bullConnection(redisUrl), prefix });
  await addJobs(queue, jobs, (i) => ({ id: `msg_floor_${i}`, body }));
  const start = receiver.received();
  const child = forkScript(join(__dirname, 'floor.worker.js'), {
    FLOOR_REDIS_URL: redisUrl,
    FLOOR_PREFIX: prefix,
    FLOOR_TARGET: receiver.target,
    FLOOR_CONCURRENCY: String(CONCURRENCY),
  });
  while (receiver.received() === start) await sleep(5);
  const first = {
    at: performance.now(),
    count: receiver.received(),
    cpu: await readCpu(redis, [child.pid!]),
  };
  while (receiver.received() < start + jobs) await sleep(5);
  const seconds = (performance.now() - first.at) / 1000;
  const moved = start + jobs - first.count;
  const cpu = cpuPerItem(first.cpu, await readCpu(redis, [child.pid!]), moved, 'receiver');
  await stopProcess(child);
  await queue.obliterate({ force: true });
  await queue.close();
  return { perSecond: moved / seconds, cpu };
}

function writeResult(file: string, result: object): void {
  const dir = join(__dirname, '..', '..', 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, file), JSON.stringify(result, null, 2));
}

async function main() {
  // With OTEL_* set (bench/tracing.bench.ts), the events this process writes are traced, as an api's are.
  await startTracing('wharf-api');
  // NODE_ENV=test: production's https-only rule would refuse the local http receiver; nothing else differs.
  const { config, env } = benchConfig({ NODE_ENV: 'test', WEBHOOKS_CONCURRENCY: String(CONCURRENCY) });
  countPostgresOf(new URL(config.databaseUrl).pathname.slice(1));
  if (FILTERED_ENDPOINTS > 0)
    return withBenchDatabase(config, () =>
      filteredEndpoints(config, env, FILTERED_ENDPOINTS, Number(process.env.BENCH_EVENTS ?? 2_000), ROUNDS),
    );
  await withBenchDatabase(config, async () => {
    const receipts = new Map<string, number>();
    let floorReceipts = 0;
    let slowStarted = 0;
    let slowAnswered = 0;
    const receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (req.url === '/slow') {
          slowStarted++;
          setTimeout(() => {
            slowAnswered++;
            if (!res.destroyed) res.writeHead(200).end();
          }, NEIGHBOUR_DELAY_MS);
          return;
        }
        if (req.url === '/floor') floorReceipts++;
        else receipts.set(String(req.headers['webhook-id']), performance.now());
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(receiver.address() as { port: number }).port}`;
    const target = `${origin}/hook`;
    const redis = new Redis(bullConnection(config.redisUrl));

    const { app, url, company } = await startBenchApi(config);
    const { endpoint } = await app
      .get(WebhookEndpointsService)
      .create(company.company.uuid, { url: target, events: ['warehouse.created'] });
    // The drained endpoint may use every worker slot, as any endpoint could before max_in_flight existed;
    // the neighbour's keeps the default (WEBHOOKS_ENDPOINT_CONCURRENCY, 10).
    await app
      .get(DataSource)
      .query('UPDATE webhook_endpoints SET max_in_flight = $1 WHERE uuid = $2', [
        Math.min(100, CONCURRENCY),
        endpoint.uuid,
      ]);
    const brokers = () =>
      brokerRounds({ app, url, config, env, redis, events: BROKER_EVENTS, concurrency: CONCURRENCY });
    if (BROKERS === 'only') {
      const result = { brokers: await brokers() };
      process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      writeResult('webhooks-brokers-latest.json', result);
      redis.disconnect();
      await app.close();
      receiver.close();
      return;
    }
    const client = new Agent({ connections: 32 });
    const headers = { authorization: `Bearer ${company.api_key}`, 'content-type': 'application/json' };
    const body = (i: number) =>
      JSON.stringify({
        warehouse: { name: `W${i}`, address: 'a', city: 'c', state: 's', zip: 'z', capacity: i },
      });
    const create = async (i: number) => {
      const res = await request(`${url}/inventory/int/v1/warehouses`, {
        method: 'POST',
        headers,
        body: body(i),
        dispatcher: client,
      });
      const text = await res.body.text();
      if (res.statusCode !== 201) throw new Error(`create failed: ${res.statusCode} ${text}`);
    };

    // 1. Throughput, in ROUNDS: a backlog of N committed events drained by one worker process, then, right
    // after on the same machine state, the two references. Ratios are per round; the medians are reported.
    let sample: string | undefined;
    const rounds: { drain: Measured; noop: Measured; floor: Measured }[] = [];
    let worker: ChildProcess | undefined;
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < N; i += 64)
        await Promise.all(Array.from({ length: Math.min(64, N - i) }, (_, j) => create(round * N + i + j)));
      receipts.clear();
      const drainer = (worker = startProcess('worker', env));
      // Measured from the first receipt, so the worker's boot is not counted.
      while (!receipts.size) await sleep(5);
      const first = {
        at: performance.now(),
        count: receipts.size,
        cpu: await readCpu(redis, [drainer.pid!]),
      };
      while (receipts.size < N) await sleep(5);
      const delivered = N - first.count;
      const drain = {
        perSecond: delivered / ((performance.now() - first.at) / 1000),
        cpu: cpuPerItem(first.cpu, await readCpu(redis, [drainer.pid!]), delivered, 'receiver'),
      };
      // The last round's worker stays up (idle during the references) for the latency run, warmed up.
      if (round < ROUNDS - 1) await stopProcess(drainer);
      // The floor posts a real envelope.
      if (sample === undefined) {
        const rows: { body: string }[] = await app
          .get(DataSource)
          .query(`SELECT payload::text AS body FROM webhook_events LIMIT 1`);
        sample = rows[0].body;
      }
      const noop = await rawBullmqNoop(config.redisUrl, `${config.queuePrefix}-noop${round}`, N, redis);
      const floor = await bullmqHttpFloor(
        config.redisUrl,
        `${config.queuePrefix}-floor${round}`,
        N,
        redis,
        sample,
        {
          target: `${origin}/floor`,
          received: () => floorReceipts,
        },
      );
      rounds.push({ drain, noop, floor });
    }

    // 2. Latency: commit → receipt at a steady RATE events/s.
    const latencyAtRate = async () => {
      receipts.clear();
      const committed = new Map<string, number>();
      const total = RATE * RATE_SECONDS;
      const paced = performance.now();
      const inflight: Promise<void>[] = [];
      for (let i = 0; i < total; i++) {
        const due = paced + (i * 1000) / RATE;
        const wait = due - performance.now();
        if (wait > 0) await sleep(wait);
        inflight.push(
          (async () => {
            const res = await request(`${url}/inventory/int/v1/warehouses`, {
              method: 'POST',
              headers,
              body: body(i),
              dispatcher: client,
            });
            const json = (await res.body.json()) as { warehouse: { uuid: string } };
            committed.set(json.warehouse.uuid, performance.now());
          })(),
        );
      }
      await Promise.all(inflight);
      const deadline = performance.now() + 30_000;
      while (receipts.size < total && performance.now() < deadline) await sleep(20);
      // Map webhook ids back to warehouses through the outbox.
      const events: { event_id: string; uuid: string }[] = await app.get(DataSource).query(
        `SELECT event_id, payload->'data'->>'id' AS uuid FROM webhook_events
           WHERE name = 'warehouse.created' AND company_uuid = $1`,
        [company.company.uuid],
      );
      const ids = new Map(events.map((event) => [event.event_id, event.uuid]));
      const latencies: number[] = [];
      for (const [eventId, at] of receipts) {
        const uuid = ids.get(eventId);
        const start = uuid ? committed.get(uuid) : undefined;
        if (start !== undefined) latencies.push(at - start);
      }
      latencies.sort((a, b) => a - b);
      return {
        events_per_second: RATE,
        events: total,
        delivered: receipts.size,
        p50_ms: Math.round(percentile(latencies, 50)),
        p95_ms: Math.round(percentile(latencies, 95)),
        p99_ms: Math.round(percentile(latencies, 99)),
      };
    };
    const latency = await latencyAtRate();

    // 3. Noisy neighbour: another company's endpoint answers after NEIGHBOUR_DELAY_MS and has a backlog of
    // NEIGHBOUR_BACKLOG deliveries, while the same latency run goes on for the fast endpoint.
    const neighbour = await app.get(AccountsService).createCompany('Neighbour');
    await app
      .get(WebhookEndpointsService)
      .create(neighbour.company.uuid, { url: `${origin}/slow`, events: ['warehouse.created'] });
    const neighbourHeaders = { ...headers, authorization: `Bearer ${neighbour.api_key}` };
    for (let i = 0; i < NEIGHBOUR_BACKLOG; i += 64) {
      await Promise.all(
        Array.from({ length: Math.min(64, NEIGHBOUR_BACKLOG - i) }, async (_, j) => {
          const res = await request(`${url}/inventory/int/v1/warehouses`, {
            method: 'POST',
            headers: neighbourHeaders,
            body: body(i + j),
            dispatcher: client,
          });
          await res.body.text();
        }),
      );
    }
    const pendingOfNeighbour = async () => {
      const [row]: { n: number }[] = await app.get(DataSource).query(
        `SELECT count(*)::int AS n FROM webhook_deliveries
         WHERE company_uuid = $1 AND status <> 'failed'`,
        [neighbour.company.uuid],
      );
      return row.n;
    };
    // The slow endpoint holds its requests open from here on.
    while (slowStarted === 0) await sleep(20);
    const neighbourStart = { at: performance.now(), answered: slowAnswered };
    const pendingBefore = await pendingOfNeighbour();
    const withNeighbour = await latencyAtRate();
    const neighbourSeconds = (performance.now() - neighbourStart.at) / 1000;
    const neighbourRound = {
      neighbour_receiver_delay_ms: NEIGHBOUR_DELAY_MS,
      neighbour_pending_at_start: pendingBefore,
      ...withNeighbour,
      neighbour_drained_per_second: round3((slowAnswered - neighbourStart.answered) / neighbourSeconds),
    };
    // Its backlog would take hours at its max_in_flight: the round ends with it, not the worker.
    await app
      .get(DataSource)
      .query(`DELETE FROM webhook_endpoints WHERE company_uuid = $1`, [neighbour.company.uuid]);

    if (worker) await stopProcess(worker);
    // One round per broker type, each with its own backlog and worker (RabbitMQ's with its floor).
    const brokerResult = BROKERS === 'none' ? undefined : await brokers();

    const medianCpu = (pick: (r: (typeof rounds)[number]) => Record<string, number>) =>
      Object.fromEntries(
        Object.keys(pick(rounds[0])).map((part) => [part, median(rounds.map((r) => pick(r)[part]))]),
      );
    const result = {
      events: N,
      rounds: ROUNDS,
      deliveries_per_second: Math.round(median(rounds.map((r) => r.drain.perSecond))),
      raw_bullmq_noop_jobs_per_second: Math.round(median(rounds.map((r) => r.noop.perSecond))),
      ratio_to_noop: round3(median(rounds.map((r) => r.drain.perSecond / r.noop.perSecond))),
      // What one BullMQ job plus one plain HTTP POST per delivery allows here, before signing or PostgreSQL.
      floor_bullmq_plus_http_per_second: Math.round(median(rounds.map((r) => r.floor.perSecond))),
      floor_ratio_to_noop: round3(median(rounds.map((r) => r.floor.perSecond / r.noop.perSecond))),
      // Compared with the floor: the targets below are ratios to it, steadier than rates on a shared machine.
      ratio_to_floor: round3(median(rounds.map((r) => r.drain.perSecond / r.floor.perSecond))),
      cpu_ratio_to_floor: round3(median(rounds.map((r) => r.drain.cpu.total / r.floor.cpu.total))),
      per_round: rounds.map((r) => ({
        deliveries_per_second: Math.round(r.drain.perSecond),
        noop_per_second: Math.round(r.noop.perSecond),
        floor_per_second: Math.round(r.floor.perSecond),
      })),
      cpu_us_per_item: {
        delivery: medianCpu((r) => r.drain.cpu),
        floor: medianCpu((r) => r.floor.cpu),
        noop: medianCpu((r) => r.noop.cpu),
      },
      latency_at_rate: latency,
      noisy_neighbour: neighbourRound,
      ...(brokerResult ? { brokers: brokerResult } : {}),
      // Issue 19's (ratio_to_floor, cpu_ratio_to_floor, p99_ms) and the fair-delivery issue's (the neighbour's).
      targets: {
        ratio_to_floor: '>= 0.7',
        cpu_ratio_to_floor: '<= 1.5',
        p99_ms: '< 100',
        noisy_neighbour_p99_ms: '< 250',
      },
    };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    writeResult('webhooks-latest.json', result);

    await client.close();
    redis.disconnect();
    await app.close();
    receiver.close();
  });
  await stopTracing();
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
});
