import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { dataSourceOptions } from '@wharf/core';
import { AccountsService } from '@wharf/accounts';
import { composeWharf } from '@wharf/webhooks';
import { DataSource } from 'typeorm';
import { benchConfig, sleep, startProcess, stopProcess, withBenchDatabase } from './bench-support';

/**
 * The scale round of bench:api (issue 19): one company with N warehouses, each with a location, three
 * sections and three docks, seeded with set-based SQL; the list requests a UI sends, measured alone
 * (best of 3) and under load, at each N. Run with `npm run bench:api -- --scale` (sizes from
 * BENCH_SCALE_ROWS, default 10000,1000000).
 */
const SIZES = (process.env.BENCH_SCALE_ROWS ?? '10000,1000000').split(',').map(Number);
const CONNECTIONS = Number(process.env.BENCH_SCALE_CONNECTIONS ?? 8);
const DURATION = Number(process.env.BENCH_SCALE_DURATION ?? 5);
const WARMUP = Number(process.env.BENCH_SCALE_WARMUP ?? 1);
const PORT = 3914;
const W = '/inventory/int/v1/warehouses';
/** page=30000 of 30: the depth the issue measured; the cursor starts the same page from a keyset. */
const DEEP_OFFSET = 899_970;

interface Timing {
  single_ms: number;
  p50_ms: number;
  p99_ms: number;
  rps: number;
  errors: number;
}

const log = (line: string) => process.stdout.write(`${line}\n`);

/** Seeds `rows` warehouses (with location, 3 sections, 3 docks each) with the secondary indexes rebuilt after. */
async function seed(dataSource: DataSource, company: string, rows: number): Promise<void> {
  const tables = ['locations', 'warehouses', 'warehouse_sections', 'warehouse_docks'];
  // Building an index once is far cheaper than maintaining it through millions of inserts.
  const indexes: { indexname: string; indexdef: string }[] = await dataSource.query(
    `SELECT i.indexname, i.indexdef FROM pg_indexes i
      WHERE i.schemaname = current_schema() AND i.tablename = ANY($1)
        AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)`,
    [tables],
  );
  for (const { indexname } of indexes) await dataSource.query(`DROP INDEX "${indexname}"`);
  await dataSource.query(
    `WITH locs AS (
       INSERT INTO locations (company_uuid, name, city, created_at, updated_at)
       SELECT $1, 'Location ' || i, 'City ' || (i % 50), ts, ts
         FROM generate_series(1, $2::int) i, LATERAL (SELECT timestamptz '2020-01-01' + i * interval '1 second' AS ts) t
       RETURNING uuid, id, created_at)
     INSERT INTO warehouses (company_uuid, location_uuid, name, address, city, state, zip, capacity, created_at, updated_at)
     SELECT $1, uuid, 'Warehouse ' || id, id || ' Dock Road', 'City ' || (id % 50), 'ST', '00000', id % 1000,
            created_at, created_at
       FROM locs`,
    [company, rows],
  );
  for (const [table, column] of [
    ['warehouse_sections', 'name'],
    ['warehouse_docks', 'dock_number'],
  ]) {
    await dataSource.query(
      `INSERT INTO ${table} (company_uuid, warehouse_uuid, ${column})
       SELECT $1, w.uuid, 'N' || n FROM warehouses w, generate_series(1, 3) n`,
      [company],
    );
  }
  await dataSource.query(`SET maintenance_work_mem = '256MB'`);
  for (const { indexdef } of indexes) await dataSource.query(indexdef);
  await dataSource.query(`VACUUM ANALYZE ${tables.join(', ')}`);
}

function load(url: string, path: string, key: string): Promise<Omit<Timing, 'single_ms'>> {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: `${url}${path}`,
        connections: CONNECTIONS,
        duration: DURATION,
        timeout: 60,
        headers: { authorization: `Bearer ${key}` },
      },
      (error, result) => {
        if (error) return reject(error instanceof Error ? error : new Error(String(error)));
        resolve({
          p50_ms: result.latency.p50,
          p99_ms: result.latency.p99,
          rps: result.requests.average,
          errors: result.non2xx + result.errors,
        });
      },
    );
  });
}

async function single(url: string, path: string, key: string): Promise<number> {
  const headers = { authorization: `Bearer ${key}` };
  let best = Infinity;
  // One warm-up (plans, caches), then the best of three.
  for (let i = 0; i < 4; i++) {
    const start = performance.now();
    const response = await fetch(`${url}${path}`, { headers });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`${path}: ${response.status}`);
    if (i) best = Math.min(best, performance.now() - start);
  }
  return Number(best.toFixed(1));
}

async function waitFor(url: string) {
  for (let i = 0; i < 300; i++) {
    if (
      await fetch(url).then(
        (r) => r.status < 500,
        () => false,
      )
    )
      return;
    await sleep(200);
  }
  throw new Error(`${url} did not come up`);
}

/** The 1-minute load average before and after a size's measurements (other work skews latencies). */
const loads: Record<number, number[]> = {};

async function measureSize(rows: number): Promise<Record<string, Timing>> {
  const { config, env } = benchConfig();
  const results: Record<string, Timing> = {};
  loads[rows] = [];
  await withBenchDatabase(config, async () => {
    const dataSource = new DataSource(dataSourceOptions(config.databaseUrl, composeWharf(config).manifests));
    await dataSource.initialize();
    const { company, api_key } = await new AccountsService(dataSource).createCompany('Bench');
    const started = performance.now();
    await seed(dataSource, company.uuid, rows);
    log(`scale ${rows}: seeded in ${((performance.now() - started) / 1000).toFixed(0)} s`);
    const [{ uuid }] = await dataSource.query('SELECT uuid FROM warehouses ORDER BY id OFFSET $1 LIMIT 1', [
      Math.floor(rows / 2),
    ]);
    const api = startProcess('api', { ...env, PORT: String(PORT) });
    const url = `http://127.0.0.1:${PORT}`;
    try {
      await waitFor(`${url}/health`);
      const headers = { authorization: `Bearer ${api_key}` };
      // A cursor at the depth of page=30000 (or 90% of a smaller list): what a client following next_cursor holds.
      const depth = Math.min(DEEP_OFFSET, Math.floor(rows * 0.9));
      const response = await fetch(`${url}${W}?limit=30&offset=${depth - 30}`, { headers });
      const before = (await response.json()) as { meta: { next_cursor: string } };
      const cursor = before.meta.next_cursor;
      const requests: Record<string, string> = {
        'first page (default sort)': `${W}?limit=30`,
        'first page, sort=name': `${W}?limit=30&sort=name`,
        'query=Warehouse 99999': `${W}?limit=30&query=Warehouse%2099999`,
        // The row above matches nothing at 10k and 11 records at 1M: this one matches the same 11 at
        // both sizes ("Warehouse 999" at 10k: 999, 9990…9999), so only the search's own cost differs.
        'query=, 11 matches': `${W}?limit=30&query=Warehouse%20${'9'.repeat(Math.max(1, Math.round(Math.log10(rows)) - 1))}`,
        'page=30000': `${W}?limit=30&page=30000`,
        'cursor (same depth)': `${W}?limit=30&cursor=${cursor}`,
        'GET one': `${W}/${uuid}`,
      };
      loads[rows].push(Number(loadavg()[0].toFixed(2)));
      for (const [name, path] of Object.entries(requests)) {
        const single_ms = await single(url, path, api_key);
        if (WARMUP) await load(url, path, api_key).catch(() => undefined);
        results[name] = { single_ms, ...(await load(url, path, api_key)) };
        log(
          `scale ${rows}: ${name.padEnd(26)} single ${single_ms} ms; ${CONNECTIONS} connections p50 ${results[name].p50_ms} / p99 ${results[name].p99_ms} ms, ${Math.round(results[name].rps)} req/s${results[name].errors ? `, ${results[name].errors} errors` : ''}`,
        );
      }
      loads[rows].push(Number(loadavg()[0].toFixed(2)));
      log(`scale ${rows}: load average ${loads[rows].join(' → ')}`);
    } finally {
      await stopProcess(api);
      await dataSource.destroy();
    }
  });
  return results;
}

export async function scaleRound(): Promise<void> {
  const bySize: Record<number, Record<string, Timing>> = {};
  for (const rows of SIZES) bySize[rows] = await measureSize(rows);
  const [small, large] = [SIZES[0], SIZES[SIZES.length - 1]];
  log(
    `\nrequest                     single ms ${small} → ${large} (×)       under load p50/p99 ms ${small} → ${large}`,
  );
  for (const name of Object.keys(bySize[small])) {
    const [a, b] = [bySize[small][name], bySize[large][name]];
    log(
      `${name.padEnd(27)} ${String(a.single_ms).padStart(7)} → ${String(b.single_ms).padStart(7)} (${(b.single_ms / a.single_ms).toFixed(2)})   ${a.p50_ms}/${a.p99_ms} → ${b.p50_ms}/${b.p99_ms}`,
    );
  }
  const dir = join(__dirname, '..', '..', 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'api-scale.json'),
    JSON.stringify(
      {
        settings: { sizes: SIZES, connections: CONNECTIONS, duration_s: DURATION, warmup_s: WARMUP },
        load_average: loads,
        results: bySize,
        targets: { first_page_ms: 20, search_ms: 50, ratio_to_small: 1.5 },
      },
      null,
      2,
    ),
  );
}
