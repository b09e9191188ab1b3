import 'reflect-metadata';
import { ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dataSourceOptions, parseDuration } from '@wharf/core';
import { AccountsService } from '@wharf/accounts';
import { composeWharf } from '@wharf/webhooks';
import { DataSource } from 'typeorm';
import { Agent, request } from 'undici';
import {
  benchConfig,
  percentile,
  sleep,
  startProcess,
  stopProcess,
  waitFor,
  withBenchDatabase,
} from './bench-support';

/*
 * bench:soak: warehouses created at a steady rate for BENCH_SOAK_MINUTES, each event delivered to one
 * endpoint, with short partitions and retention so that partitions are created and dropped during the run.
 * Every minute: the total size, partitions and dead tuples of webhook_events and webhook_request_logs, and
 * the p99 from a create's commit (its 201) to the receipt of its webhook. If retention works, the size
 * levels off once the retention window (plus one partition) has passed.
 */
const RATE = Number(process.env.BENCH_SOAK_RATE ?? 500);
const MINUTES = Number(process.env.BENCH_SOAK_MINUTES ?? 20);
const INTERVAL = process.env.BENCH_SOAK_PARTITION_INTERVAL ?? '2m';
const RETENTION = process.env.BENCH_SOAK_RETENTION ?? '6m';
const SAMPLE_MS = Number(process.env.BENCH_SOAK_SAMPLE_MS ?? 60_000);
/** Creates in flight at most: past it the generator waits, and the rate it reached is reported. */
const MAX_IN_FLIGHT = Number(process.env.BENCH_SOAK_MAX_IN_FLIGHT ?? 256);
const DAY_MS = 86_400_000;
const API_PORT = Number(process.env.BENCH_SOAK_API_PORT ?? 3921);

const TABLES = ['webhook_events', 'webhook_request_logs'] as const;

/** Size (indexes and TOAST included), partitions and dead tuples of each partitioned table. */
const TABLE_STATS = `
SELECT p.relname AS table_name, count(c.oid)::int AS partitions,
  coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint AS bytes,
  coalesce(sum(s.n_live_tup), 0)::bigint AS live_tuples, coalesce(sum(s.n_dead_tup), 0)::bigint AS dead_tuples
FROM pg_class p
LEFT JOIN pg_inherits i ON i.inhparent = p.oid
LEFT JOIN pg_class c ON c.oid = i.inhrelid
LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
WHERE p.relname = ANY($1::text[]) AND p.relnamespace = current_schema()::regnamespace
GROUP BY p.relname`;

interface Minute {
  minute: number;
  /** Seconds since the start, and the creates per second reached since the last sample. */
  at_s: number;
  created_per_second: number;
  created: number;
  delivered: number;
  failed_creates: number;
  p50_ms: number;
  p99_ms: number;
  total_mb: number;
  tables: Record<string, { mb: number; partitions: number; live_tuples: number; dead_tuples: number }>;
}

async function main() {
  const retentionDays = String(parseDuration(RETENTION) / DAY_MS);
  const lifecycle = {
    WEBHOOKS_PARTITION_INTERVAL: INTERVAL,
    WEBHOOKS_EVENT_RETENTION_DAYS: retentionDays,
    WEBHOOKS_LOG_RETENTION_DAYS: retentionDays,
  };
  // The conversion migration reads the interval from the environment, as `npm run migrate` does.
  process.env.WEBHOOKS_PARTITION_INTERVAL = INTERVAL;
  // NODE_ENV=test: production's https-only rule would refuse the local http receiver; nothing else differs.
  const { config, env } = benchConfig({ NODE_ENV: 'test', PORT: String(API_PORT), ...lifecycle });
  await withBenchDatabase(config, async () => {
    const committed = new Map<string, number>();
    // A webhook can arrive before this process has read its create's 201 (one event loop for both).
    const early = new Map<string, number>();
    let latencies: number[] = [];
    let delivered = 0;
    const receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const at = performance.now();
        res.writeHead(200).end();
        const uuid = (JSON.parse(Buffer.concat(chunks).toString()) as { data: { id: string } }).data.id;
        const start = committed.get(uuid);
        if (start === undefined) {
          early.set(uuid, at);
          return;
        }
        committed.delete(uuid);
        delivered++;
        latencies.push(at - start);
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const target = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;

    // The api in a process of its own, as in production: this one only generates load and receives.
    const db = new DataSource(dataSourceOptions(config.databaseUrl, composeWharf(config).manifests));
    await db.initialize();
    const company = await new AccountsService(db).createCompany('Soak');
    const api: ChildProcess = startProcess('api', env);
    const url = `http://127.0.0.1:${API_PORT}`;
    await waitFor(`${url}/health`);
    const client = new Agent({ connections: 32 });
    const headers = { authorization: `Bearer ${company.api_key}`, 'content-type': 'application/json' };
    const endpoint = await request(`${url}/int/v1/webhook-endpoints`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ webhook_endpoint: { url: target, events: ['warehouse.created'] } }),
      dispatcher: client,
    });
    if (endpoint.statusCode !== 201) throw new Error(`endpoint: ${await endpoint.body.text()}`);
    await endpoint.body.dump();
    const worker: ChildProcess = startProcess('worker', env);
    let created = 0;
    let failedCreates = 0;
    const create = async (i: number) => {
      try {
        const res = await request(`${url}/inventory/int/v1/warehouses`, {
          method: 'POST',
          headers,
          body: JSON.stringify({
            warehouse: { name: `W${i}`, address: 'a', city: 'c', state: 's', zip: 'z', capacity: i },
          }),
          dispatcher: client,
        });
        const json = (await res.body.json()) as { warehouse?: { uuid: string } };
        if (res.statusCode !== 201 || !json.warehouse) throw new Error(`status ${res.statusCode}`);
        created++;
        const now = performance.now();
        const arrived = early.get(json.warehouse.uuid);
        if (arrived === undefined) committed.set(json.warehouse.uuid, now);
        else {
          early.delete(json.warehouse.uuid);
          delivered++;
          latencies.push(arrived - now);
        }
      } catch {
        failedCreates++;
      }
    };

    const minutes: Minute[] = [];
    let started = performance.now();
    const sample = async (minute: number) => {
      const rows: {
        table_name: string;
        partitions: number;
        bytes: string;
        live_tuples: string;
        dead_tuples: string;
      }[] = await db.query(TABLE_STATS, [TABLES]);
      const tables = Object.fromEntries(
        rows.map((row) => [
          row.table_name,
          {
            mb: Number((Number(row.bytes) / 1048576).toFixed(1)),
            partitions: row.partitions,
            live_tuples: Number(row.live_tuples),
            dead_tuples: Number(row.dead_tuples),
          },
        ]),
      );
      const sorted = latencies.sort((a, b) => a - b);
      latencies = [];
      const at = (performance.now() - started) / 1000;
      const previous = minutes[minutes.length - 1] ?? { at_s: 0, created: 0 };
      const entry: Minute = {
        minute,
        at_s: Math.round(at),
        created_per_second: Math.round((created - previous.created) / (at - previous.at_s)),
        created,
        delivered,
        failed_creates: failedCreates,
        p50_ms: Math.round(percentile(sorted, 50)),
        p99_ms: Math.round(percentile(sorted, 99)),
        total_mb: Number(rows.reduce((sum, row) => sum + Number(row.bytes) / 1048576, 0).toFixed(1)),
        tables,
      };
      minutes.push(entry);
      process.stdout.write(`${JSON.stringify(entry)}\n`);
    };

    // The worker boots while this runs: the paced load starts once a first create has been delivered.
    await create(0);
    if (failedCreates) throw new Error('the warm-up create failed');
    while (delivered === 0) await sleep(20);
    created = 0;
    delivered = 0;
    latencies = [];

    // Paced creates; a sample every SAMPLE_MS (the minute's latencies, then the tables).
    started = performance.now();
    const end = started + MINUTES * 60_000;
    let nextSample = started + SAMPLE_MS;
    const inflight = new Set<Promise<void>>();
    for (let i = 0; performance.now() < end; i++) {
      const wait = started + (i * 1000) / RATE - performance.now();
      if (wait > 0) await sleep(wait);
      // Behind (the api slower than RATE): wait for a create rather than queue them without end.
      if (inflight.size >= MAX_IN_FLIGHT) await Promise.race(inflight);
      const done: Promise<void> = create(i).finally(() => inflight.delete(done));
      inflight.add(done);
      if (performance.now() >= nextSample) {
        nextSample += SAMPLE_MS;
        void sample(minutes.length + 1);
      }
    }
    await Promise.all(inflight);
    const reached = Math.round(created / ((performance.now() - started) / 1000));
    const deadline = performance.now() + 30_000;
    while (committed.size && performance.now() < deadline) await sleep(50);
    await sample(minutes.length + 1);

    // Flat: the spread of the total size over the last half of the run, against its mean.
    const tail = minutes.slice(Math.floor(minutes.length / 2));
    const sizes = tail.map((entry) => entry.total_mb);
    const mean = sizes.reduce((sum, size) => sum + size, 0) / sizes.length;
    const result = {
      rate_per_second: RATE,
      reached_per_second: reached,
      minutes: MINUTES,
      partition_interval: INTERVAL,
      retention: RETENTION,
      created,
      delivered,
      failed_creates: failedCreates,
      undelivered: committed.size,
      last_half_total_mb: { min: Math.min(...sizes), max: Math.max(...sizes), mean: Number(mean.toFixed(1)) },
      last_half_spread_of_mean: Number(((Math.max(...sizes) - Math.min(...sizes)) / 2 / mean).toFixed(3)),
      max_p99_ms: Math.max(...minutes.map((entry) => entry.p99_ms)),
      per_minute: minutes,
      targets: { last_half_spread_of_mean: '<= 0.15', max_p99_ms: '< 100' },
    };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    const dir = join(__dirname, '..', '..', 'bench', 'results');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'soak-latest.json'), JSON.stringify(result, null, 2));

    await stopProcess(worker);
    await stopProcess(api);
    await client.close();
    await db.destroy();
    receiver.close();
  });
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
});
