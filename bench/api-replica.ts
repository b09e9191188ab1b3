import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { dataSourceOptions } from '@wharf/core';
import { AccountsService } from '@wharf/accounts';
import { composeWharf } from '@wharf/webhooks';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import {
  benchConfig,
  median,
  sleep,
  startProcess,
  stopProcess,
  waitFor,
  withBenchDatabase,
} from './bench-support';
import { procSeconds, secondsBetween, treeSeconds } from './process-cpu';
import { OwnPostgres } from './own-postgres';
import { freePort } from './ports';

/**
 * The replica round of bench:api (`BENCH_REPLICA=1 npm run bench:api`): a PostgreSQL primary of its own and a
 * streaming replica of it (pg_basebackup -R), two api processes on the same database, one reading from the
 * replica (DATABASE_REPLICA_URLS) and one from the primary, GET list and GET one measured on each in
 * alternating runs, with the CPU each process and each server spent per request.
 */
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

type Side = 'replica' | 'primary';

interface Measure {
  rps: number;
  p99: number;
  errors: number;
  /** CPU µs per request: the api process, the primary's processes, the replica's processes. */
  cpu: { api: number; primary: number; replica: number };
}

async function run(
  url: string,
  path: () => string,
  key: string,
  duration: number,
  pids: Record<string, number>,
) {
  const before = {
    api: procSeconds(pids.api) ?? 0,
    primary: treeSeconds(pids.primary),
    replica: treeSeconds(pids.replica),
  };
  const result = await new Promise<autocannon.Result>((resolve, reject) =>
    autocannon(
      {
        url,
        connections: CONNECTIONS,
        duration,
        headers: { authorization: `Bearer ${key}` },
        requests: [{ method: 'GET', setupRequest: (r: any) => ({ ...r, path: path() }) }],
      },
      (error, done) =>
        error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(done),
    ),
  );
  const n = Math.max(1, result.requests.total);
  const us = (s: number) => Math.round((s * 1e6) / n);
  return {
    rps: Math.round(result.requests.average),
    p99: result.latency.p99,
    errors: result.non2xx + result.errors,
    cpu: {
      api: us((procSeconds(pids.api) ?? 0) - before.api),
      primary: us(secondsBetween(before.primary, treeSeconds(pids.primary))),
      replica: us(secondsBetween(before.replica, treeSeconds(pids.replica))),
    },
  } satisfies Measure;
}

function summarise(list: Measure[]) {
  const rps = list.map((m) => m.rps);
  return {
    rps: median(rps),
    rps_min: Math.min(...rps),
    rps_max: Math.max(...rps),
    p99_ms: median(list.map((m) => m.p99)),
    errors: list.reduce((sum, m) => sum + m.errors, 0),
    cpu_us_per_request: {
      api: median(list.map((m) => m.cpu.api)),
      primary: median(list.map((m) => m.cpu.primary)),
      replica: median(list.map((m) => m.cpu.replica)),
    },
  };
}

/** Until the replica has replayed what the primary had written when this was called. */
async function caughtUp(primary: OwnPostgres, replica: OwnPostgres, database: string): Promise<void> {
  const read = async (server: OwnPostgres, sql: string, params: unknown[] = []) => {
    const client = new Client({ connectionString: server.url(database) });
    await client.connect();
    try {
      return (await client.query(sql, params)).rows[0];
    } finally {
      await client.end();
    }
  };
  const { lsn } = await read(primary, 'SELECT pg_current_wal_insert_lsn()::text AS lsn');
  while (!(await read(replica, 'SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done', [lsn])).done)
    await sleep(100);
}

export async function replicaRound(
  seed: (dataSource: DataSource, company: string) => Promise<string[]>,
): Promise<void> {
  const primary = await OwnPostgres.create();
  const replica = await primary.standby();
  try {
    const database = 'wharf_bench_replica';
    const { config, env } = benchConfig({ DATABASE_URL: primary.url(database) });
    await withBenchDatabase(config, async () => {
      const dataSource = new DataSource(
        dataSourceOptions(config.databaseUrl, composeWharf(config).manifests),
      );
      await dataSource.initialize();
      const { company, api_key } = await new AccountsService(dataSource).createCompany('Bench');
      const uuids = await seed(dataSource, company.uuid);
      await caughtUp(primary, replica, database);
      const ports = { replica: await freePort(), primary: await freePort() };
      const apis = {
        replica: startProcess('api', {
          ...env,
          PORT: String(ports.replica),
          DATABASE_REPLICA_URLS: replica.url(database),
        }),
        primary: startProcess('api', { ...env, PORT: String(ports.primary) }),
      };
      const urls = {
        replica: `http://127.0.0.1:${ports.replica}`,
        primary: `http://127.0.0.1:${ports.primary}`,
      };
      await waitFor(`${urls.replica}/health`);
      await waitFor(`${urls.primary}/health`);
      const pick = () => uuids[Math.floor(Math.random() * uuids.length)];
      const routes: Record<string, () => string> = {
        'GET one': () => `/inventory/int/v1/warehouses/${pick()}`,
        'GET list': () => '/inventory/int/v1/warehouses?limit=30&sort=name&city=City%207',
      };
      const results: Record<string, Record<Side, Measure[]>> = {};
      for (const [route, path] of Object.entries(routes)) {
        results[route] = { replica: [], primary: [] };
        for (let round = 0; round < ROUNDS; round++) {
          for (const side of (round % 2 ? ['primary', 'replica'] : ['replica', 'primary']) as Side[]) {
            const pids = { api: apis[side].pid!, primary: primary.pid(), replica: replica.pid() };
            if (WARMUP) await run(urls[side], path, api_key, WARMUP, pids);
            results[route][side].push(await run(urls[side], path, api_key, DURATION, pids));
          }
        }
      }
      const metrics = await (await fetch(`${urls.replica}/metrics`)).text();
      const reads = (server: string) =>
        Number(
          new RegExp(`^wharf_database_reads_total\\{server="${server}"\\} (\\d+)`, 'm').exec(metrics)?.[1] ??
            0,
        );
      const table = Object.entries(results).map(([route, sides]) => {
        const [onReplica, onPrimary] = [summarise(sides.replica), summarise(sides.primary)];
        return {
          route,
          reads_on_replica: onReplica,
          reads_on_primary: onPrimary,
          rps_ratio: Number((onReplica.rps / onPrimary.rps).toFixed(3)),
        };
      });
      const result = {
        settings: {
          connections: CONNECTIONS,
          duration_s: DURATION,
          warmup_s: WARMUP,
          rounds: ROUNDS,
          warehouses: uuids.length,
        },
        routes: table,
        reads_counted_by_the_replica_api: { replica: reads('replica'), primary: reads('primary') },
      };
      process.stdout.write(
        'route     reads on   req/s (min–max)        p99 ms  CPU µs/req api + primary + replica\n',
      );
      for (const row of table)
        for (const [side, m] of [
          ['replica', row.reads_on_replica],
          ['primary', row.reads_on_primary],
        ] as const)
          process.stdout.write(
            `${row.route.padEnd(9)} ${side.padEnd(8)}  ${`${m.rps} (${m.rps_min}–${m.rps_max})`.padEnd(21)}  ${String(m.p99_ms).padStart(6)}  ${m.cpu_us_per_request.api} + ${m.cpu_us_per_request.primary} + ${m.cpu_us_per_request.replica}\n`,
          );
      process.stdout.write(
        `reads of the replica api: ${JSON.stringify(result.reads_counted_by_the_replica_api)}\n`,
      );
      const dir = join(__dirname, '..', '..', 'bench', 'results');
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'api-replica.json'), JSON.stringify(result, null, 2));
      for (const child of Object.values(apis)) await stopProcess(child);
      await dataSource.destroy();
    });
  } finally {
    await replica.destroy();
    await primary.destroy();
  }
}
