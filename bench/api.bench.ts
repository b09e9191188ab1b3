import 'reflect-metadata';
import { ChildProcess, execFileSync } from 'node:child_process';
import { existsSync, readFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { API_NODE_FLAGS, dataSourceOptions } from '@wharf/core';
import { AccountsService } from '@wharf/accounts';
import { composeWharf, encryptSecret, generateSecret } from '@wharf/webhooks';
import { DataSource } from 'typeorm';
import { replicaRound } from './api-replica';
import { scaleRound } from './api-scale';
import { countPostgresOf, secondsBetween, serverCpuSeconds } from './process-cpu';
import {
  benchConfig,
  forkScript,
  median,
  startProcess,
  stopProcess,
  withBenchDatabase,
  waitFor,
} from './bench-support';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WAREHOUSES = Number(process.env.BENCH_WAREHOUSES ?? 10_000);
/** BENCH_ROUTES: a comma-separated selection of the routes below (e.g. `GET one,PUT`) to profile one. */
const ONLY = process.env.BENCH_ROUTES?.split(',');
/**
 * BENCH_BASE_DIST: the dist/ of a build of an earlier commit; its api runs as a fourth side ("base"), on the
 * same database and alternating with the others, so a change is measured against the code before it.
 */
const BASE_DIST = process.env.BENCH_BASE_DIST;
const PORTS = { api: 3911, limit: 3912, peer: 3913, base: 3914 } as const;
type Side = keyof typeof PORTS;
const SIDES = (Object.keys(PORTS) as Side[]).filter((side) => side !== 'base' || BASE_DIST);

interface Measure {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** Microseconds of CPU per request of the server process and of PostgreSQL: steadier than req/s on a shared machine. */
  cpu: { server: number; postgresql: number };
}

async function seed(dataSource: DataSource, companyUuid: string): Promise<string[]> {
  await dataSource.query(
    `WITH locs AS (
       INSERT INTO locations (company_uuid, name, city) SELECT $1, 'Location ' || i, 'City ' || (i % 50)
       FROM generate_series(1, $2) i RETURNING uuid, id)
     INSERT INTO warehouses (company_uuid, location_uuid, name, address, city, state, zip, capacity)
     SELECT $1, uuid, 'Warehouse ' || lpad(id::text, 6, '0'), id || ' Dock Road', 'City ' || (id % 50), 'ST', '00000', id FROM locs`,
    [companyUuid, WAREHOUSES],
  );
  for (const [table, column] of [
    ['warehouse_sections', 'name'],
    ['warehouse_docks', 'dock_number'],
  ]) {
    await dataSource.query(
      `INSERT INTO ${table} (company_uuid, warehouse_uuid, ${column}) SELECT $1, w.uuid, 'N' || n FROM warehouses w, generate_series(1, 3) n`,
      [companyUuid],
    );
  }
  await dataSource.query('ANALYZE');
  return (await dataSource.query('SELECT uuid FROM warehouses')).map((r: { uuid: string }) => r.uuid);
}

function run(
  url: string,
  options: Partial<autocannon.Options>,
  duration: number,
  pid: number,
): Promise<Measure> {
  const before = serverCpuSeconds(pid);
  return new Promise((resolve, reject) => {
    autocannon({ url, connections: CONNECTIONS, duration, ...options }, (error, result) => {
      if (error) return reject(error instanceof Error ? error : new Error(String(error)));
      const after = serverCpuSeconds(pid);
      const seconds = {
        server: after.server - before.server,
        postgresql: secondsBetween(before.postgresql, after.postgresql),
      };
      const us = (part: 'server' | 'postgresql') =>
        Math.round((seconds[part] * 1e6) / Math.max(1, result.requests.total));
      resolve({
        rps: result.requests.average,
        p50: result.latency.p50,
        p99: result.latency.p99,
        errors: result.non2xx + result.errors,
        cpu: { server: us('server'), postgresql: us('postgresql') },
      });
    });
  });
}

function routes(key: string, uuids: string[]) {
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const pick = () => uuids[Math.floor(Math.random() * uuids.length)];
  let n = 0;
  const body = () =>
    JSON.stringify({
      warehouse: {
        name: `Bench ${++n}`,
        address: '1 Quay',
        city: 'City 7',
        state: 'ST',
        zip: '00000',
        capacity: n,
      },
    });
  return {
    'GET one': {
      headers,
      requests: [
        {
          method: 'GET',
          setupRequest: (r: any) => ({ ...r, path: `/inventory/int/v1/warehouses/${pick()}` }),
        },
      ],
    },
    'GET list': {
      headers,
      requests: [{ method: 'GET', path: '/inventory/int/v1/warehouses?limit=30&sort=name&city=City%207' }],
    },
    POST: {
      headers,
      requests: [
        {
          method: 'POST',
          path: '/inventory/int/v1/warehouses',
          setupRequest: (r: any) => ({ ...r, body: body() }),
        },
      ],
    },
    // Not a route of its own: measured paired with POST (see main), so both see the same table size.
    'POST keyed': {
      headers,
      requests: [
        {
          method: 'POST',
          path: '/inventory/int/v1/warehouses',
          setupRequest: (r: any) => ({
            ...r,
            headers: { ...headers, 'idempotency-key': `bench-${process.pid}-${++n}` },
            body: body(),
          }),
        },
      ],
    },
    PUT: {
      headers,
      requests: [
        {
          method: 'PUT',
          setupRequest: (r: any) => ({
            ...r,
            path: `/inventory/int/v1/warehouses/${pick()}`,
            body: JSON.stringify({ warehouse: { capacity: ++n } }),
          }),
        },
      ],
    },
  } as Record<string, Partial<autocannon.Options>>;
}

async function measure(url: string, pid: number, options: Partial<autocannon.Options>): Promise<Measure> {
  if (WARMUP) await run(url, options, WARMUP, pid);
  return run(url, options, DURATION, pid);
}

const cpuOf = (m: { cpu_us_per_request: { server: number; postgresql: number } }) =>
  m.cpu_us_per_request.server + m.cpu_us_per_request.postgresql;

/** The commit a build's dist/ was built from, when it sits in a git checkout. */
function commitOf(dist: string): string | undefined {
  try {
    return execFileSync('git', ['-C', join(dist, '..'), 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
}

/** The api of another build (BENCH_BASE_DIST), started with that build's own Node flags. */
function startBase(dist: string, env: Record<string, string>): ChildProcess {
  const flagsFile = join(dist, 'libs', 'core', 'src', 'host', 'node-flags.js');
  const flags = existsSync(flagsFile)
    ? (createRequire(__filename)(flagsFile) as { API_NODE_FLAGS: string[] }).API_NODE_FLAGS
    : API_NODE_FLAGS;
  return forkScript(join(dist, 'apps', 'api', 'src', 'main.js'), env, [...process.execArgv, ...flags]);
}

const summarise = (list: Measure[]) => ({
  rps: Math.round(median(list.map((m) => m.rps))),
  p50_ms: median(list.map((m) => m.p50)),
  p99_ms: median(list.map((m) => m.p99)),
  errors: list.reduce((sum, m) => sum + m.errors, 0),
  cpu_us_per_request: {
    server: median(list.map((m) => m.cpu.server)),
    postgresql: median(list.map((m) => m.cpu.postgresql)),
  },
});

function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

/** Paths where two JSON documents differ (`id` aside, which the api may not send yet). */
function differences(a: unknown, b: unknown, path = ''): string[] {
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    keys.delete('id');
    return [...keys].flatMap((key) =>
      differences((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], `${path}/${key}`),
    );
  }
  return a === b ? [] : [`${path}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`];
}

/** The references only count if they answer what the api answers: compare one record and one page. */
async function compareShapes(targets: Record<Side, string>, key: string, uuid: string) {
  const headers = { authorization: `Bearer ${key}` };
  for (const path of [
    `/inventory/int/v1/warehouses/${uuid}`,
    '/inventory/int/v1/warehouses?limit=5&sort=name&city=City%207',
  ]) {
    const texts = await Promise.all(
      SIDES.map((side) => fetch(`${targets[side]}${path}`, { headers }).then((r) => r.text())),
    );
    const bodies = texts.map((text) => JSON.parse(text) as unknown);
    for (const [i, side] of SIDES.entries()) {
      const diff = differences(bodies[0], bodies[i]);
      if (diff.length)
        process.stdout.write(`shape: ${side} differs from api on ${path}: ${diff.slice(0, 5).join('; ')}\n`);
      // The limit builds the api's wire format itself: the same bytes, key order and all.
      else if (side === 'limit' && texts[i] !== texts[0])
        process.stdout.write(`shape: limit's bytes differ from the api's on ${path}\n`);
    }
  }
}

async function main() {
  const { config, env } = benchConfig();
  countPostgresOf(new URL(config.databaseUrl).pathname.slice(1));
  await withBenchDatabase(config, async () => {
    const dataSource = new DataSource(dataSourceOptions(config.databaseUrl, composeWharf(config).manifests));
    await dataSource.initialize();
    const { company, api_key } = await new AccountsService(dataSource).createCompany('Bench');
    const uuids = await seed(dataSource, company.uuid);

    const api = startProcess('api', { ...env, PORT: String(PORTS.api) });
    // The two references of issue 19: one round trip per route (limit) and stock NestJS (peer).
    const reference = (name: 'limit' | 'peer') =>
      forkScript(join(__dirname, 'references', `${name}.server.js`), {
        DATABASE_URL: config.databaseUrl,
        PORT: String(PORTS[name]),
      });
    const processes: Partial<Record<Side, ChildProcess>> = {
      api,
      limit: reference('limit'),
      peer: reference('peer'),
    };
    if (BASE_DIST) processes.base = startBase(BASE_DIST, { ...env, PORT: String(PORTS.base) });
    const targets = Object.fromEntries(
      SIDES.map((side) => [side, `http://127.0.0.1:${PORTS[side]}`]),
    ) as Record<Side, string>;
    await waitFor(`${targets.api}/health`);
    await waitFor(`${targets.limit}/`);
    await waitFor(`${targets.peer}/`);
    if (BASE_DIST) await waitFor(`${targets.base}/health`);
    const plan = routes(api_key, uuids);
    await compareShapes(targets, api_key, uuids[0]);
    const results: Record<string, Partial<Record<Side, Measure[]>>> = {};

    const routeNames = Object.keys(plan).filter((route) => route !== 'POST keyed');
    for (const [name, options] of Object.entries(plan).filter(
      ([route]) => routeNames.includes(route) && (!ONLY || ONLY.includes(route)),
    )) {
      results[name] = Object.fromEntries(SIDES.map((side) => [side, []]));
      for (let round = 0; round < ROUNDS; round++) {
        // Rotate which side goes first so drift (caches, autovacuum) hits all alike.
        const order = SIDES.map((_, i) => SIDES[(i + round) % SIDES.length]);
        for (const side of order)
          results[name][side]!.push(await measure(targets[side], processes[side]!.pid!, options));
      }
    }

    // POST with an Idempotency-Key on every request, paired with POST without, alternating which goes first.
    const keyed: Measure[] = [];
    const unkeyed: Measure[] = [];
    for (let round = 0; round < (ONLY && !ONLY.includes('POST keyed') ? 0 : ROUNDS); round++) {
      for (const variant of round % 2 ? ['POST keyed', 'POST'] : ['POST', 'POST keyed']) {
        const measured = await measure(targets.api, api.pid!, plan[variant]);
        (variant === 'POST' ? unkeyed : keyed).push(measured);
      }
    }

    // Outbox on: three enabled endpoints subscribed to every event of the company.
    for (let i = 0; i < 3; i++) {
      await dataSource.query(
        `INSERT INTO webhook_endpoints (company_uuid, url, events, secret) VALUES ($1, $2, '["*"]', $3)`,
        [company.uuid, `https://hooks${i}.example.com/wharf`, encryptSecret(generateSecret(), config.appKey)],
      );
    }
    // Paired with POST measured again just before, endpoints off, so table growth and autovacuum after the
    // route rounds weigh on both sides of the ratio alike.
    const setEndpoints = (status: 'enabled' | 'disabled') =>
      dataSource.query('UPDATE webhook_endpoints SET status = $1 WHERE company_uuid = $2', [
        status,
        company.uuid,
      ]);
    const withEndpoints: Measure[] = [];
    const pairedWithout: Measure[] = [];
    for (let round = 0; round < (ONLY && !ONLY.includes('POST') ? 0 : ROUNDS); round++) {
      await setEndpoints('disabled');
      pairedWithout.push(await measure(targets.api, api.pid!, plan.POST));
      await setEndpoints('enabled');
      withEndpoints.push(await measure(targets.api, api.pid!, plan.POST));
    }

    const ratio = (a: number, b: number) => Number((a / b).toFixed(3));
    const table = Object.entries(results).map(([route, r]) => {
      const [a, limit, peer] = [summarise(r.api!), summarise(r.limit!), summarise(r.peer!)];
      const base = r.base && summarise(r.base);
      return {
        route,
        api: a,
        limit,
        peer,
        ratio_to_limit: ratio(a.rps, limit.rps),
        ratio_to_peer: ratio(a.rps, peer.rps),
        cpu_ratio_to_limit: ratio(cpuOf(a), cpuOf(limit)),
        ...(base && {
          base,
          ratio_to_base: ratio(a.rps, base.rps),
          cpu_ratio_to_base: ratio(cpuOf(a), cpuOf(base)),
        }),
      };
    });
    const postWith = summarise(withEndpoints);
    const postWithout = summarise(pairedWithout);
    const result = {
      settings: {
        connections: CONNECTIONS,
        duration_s: DURATION,
        warmup_s: WARMUP,
        rounds: ROUNDS,
        warehouses: WAREHOUSES,
        ...(BASE_DIST && { base_commit: commitOf(BASE_DIST) }),
      },
      routes: table,
      post_with_3_endpoints: {
        ...postWith,
        post_without_rps: postWithout.rps,
        ratio_to_post_without: Number((postWith.rps / postWithout.rps).toFixed(3)),
      },
      post_with_idempotency_key: keyed.length
        ? {
            ...summarise(keyed),
            post_without_rps: summarise(unkeyed).rps,
            post_without_cpu_us_per_request: summarise(unkeyed).cpu_us_per_request,
            ratio_to_post_without: Number((summarise(keyed).rps / summarise(unkeyed).rps).toFixed(3)),
          }
        : null,
      peak_rss_mb: Object.fromEntries(SIDES.map((side) => [side, peakRssMb(processes[side]!.pid!)])),
      targets: {
        ratio_to_limit: 1,
        ratio_to_peer: 3,
        api_peak_rss_mb: 130,
        post_with_3_endpoints: 0.85,
        post_with_idempotency_key: 0.9,
      },
    };
    process.stdout.write(
      'route      api req/s  limit req/s  peer req/s  ÷limit  ÷peer  api p50/p99 ms  CPU µs/req api|limit (server+pg)\n',
    );
    const cpu = (m: { cpu_us_per_request: { server: number; postgresql: number } }) =>
      `${m.cpu_us_per_request.server}+${m.cpu_us_per_request.postgresql}`;
    for (const row of table) {
      process.stdout.write(
        `${row.route.padEnd(10)} ${String(row.api.rps).padStart(9)}  ${String(row.limit.rps).padStart(11)}  ${String(row.peer.rps).padStart(10)}  ${row.ratio_to_limit.toFixed(2).padStart(6)}  ${row.ratio_to_peer.toFixed(2).padStart(5)}  ${`${row.api.p50_ms}/${row.api.p99_ms}`.padEnd(14)}  ${cpu(row.api)} | ${cpu(row.limit)}\n`,
      );
    }
    for (const row of table)
      if (row.base)
        process.stdout.write(
          `${row.route.padEnd(10)} base ${row.base.rps} req/s: api ÷ base ${row.ratio_to_base!.toFixed(2)}, CPU µs/req ${cpu(row.api)} vs ${cpu(row.base)}\n`,
        );
    for (const row of table)
      for (const side of SIDES)
        if (row[side]!.errors)
          process.stdout.write(`${row.route}: ${side} answered ${row[side]!.errors} errors\n`);
    process.stdout.write(
      `POST with 3 endpoints: ${postWith.rps} req/s (${result.post_with_3_endpoints.ratio_to_post_without} of POST without)\n`,
    );
    if (result.post_with_idempotency_key) {
      const k = result.post_with_idempotency_key;
      process.stdout.write(
        `POST with Idempotency-Key: ${k.rps} req/s (${k.ratio_to_post_without} of POST without, ${k.post_without_rps} req/s, same rounds); CPU µs/req ${cpu(k)} vs ${k.post_without_cpu_us_per_request.server}+${k.post_without_cpu_us_per_request.postgresql}\n`,
      );
    }
    process.stdout.write(
      `peak RSS MB: ${SIDES.map((side) => `${side} ${result.peak_rss_mb[side]}`).join(' / ')}\n`,
    );
    const dir = join(__dirname, '..', '..', 'bench', 'results');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'api-latest.json'), JSON.stringify(result, null, 2));

    for (const child of Object.values(processes)) await stopProcess(child);
    await dataSource.destroy();
  });
}

// `--scale` (or BENCH_SCALE_ROWS): the scale round only, 10k vs 1M warehouses in one company (api-scale.ts).
const scale = process.argv.includes('--scale') || process.env.BENCH_SCALE_ROWS !== undefined;
// BENCH_REPLICA=1: the replica round only, reads on a streaming replica against reads on the primary.
const replica = process.env.BENCH_REPLICA === '1';
(replica ? replicaRound(seed) : scale ? scaleRound() : main()).catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
});
