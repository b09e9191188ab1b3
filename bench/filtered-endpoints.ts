import { createServer } from 'node:http';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppConfig } from '@wharf/core';
import { FAN_OUT, WORKER_DATABASE_SETTINGS } from '@wharf/webhooks/worker';
import { Client } from 'pg';
import { Agent, request } from 'undici';
import { median, sleep, startBenchApi, startProcess, stopProcess } from './bench-support';
import { procSeconds } from './process-cpu';

const ENDPOINTS = Number(process.env.BENCH_ENDPOINTS ?? 10);
/**
 * Filters every event matches, so both variants deliver the same number of events: what differs is only
 * the filters' evaluation in the fan-out statement.
 */
const FILTER = {
  event: { $prefix: 'warehouse.' },
  'data.capacity': { $gte: 0 },
  'data.city': { $in: ['c', 'Rotterdam'] },
  $or: [{ 'data.zip': 'z' }, { 'data.additionalData.changes': { $exists: true } }],
};

interface Variant {
  deliveries_per_second: number;
  /** CPU of the PostgreSQL backend running the fan-out statement over the backlog, per event. */
  relay_postgresql_cpu_us_per_event: number;
}

/**
 * `BENCH_FILTERED_ENDPOINTS=k` of bench:webhooks: BENCH_ENDPOINTS endpoints (10) of one company, k of them
 * with a payload filter, against the same endpoints without filters, in the same round (the order
 * alternating between rounds). Each variant: a backlog of `events` committed events, the fan-out statement
 * run over it in a transaction that is rolled back (its backend's CPU read from /proc), then one worker
 * draining it (deliveries/s from the first receipt).
 */
export async function filteredEndpoints(
  config: AppConfig,
  env: Record<string, string>,
  filtered: number,
  events: number,
  rounds: number,
): Promise<void> {
  let received = 0;
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(receiver.address() as { port: number }).port}`;
  const { app, url, company } = await startBenchApi(config);
  const client = new Agent({ connections: 32 });
  const headers = { authorization: `Bearer ${company.api_key}`, 'content-type': 'application/json' };
  const call = async (method: 'POST' | 'PATCH', path: string, body: unknown) => {
    const res = await request(`${url}${path}`, {
      method,
      headers,
      body: JSON.stringify(body),
      dispatcher: client,
    });
    const text = await res.body.text();
    if (res.statusCode >= 300) throw new Error(`${method} ${path}: ${res.statusCode} ${text}`);
    return JSON.parse(text);
  };
  const endpoints: string[] = [];
  for (let i = 0; i < ENDPOINTS; i++)
    endpoints.push(
      (
        await call('POST', '/int/v1/webhook-endpoints', {
          webhook_endpoint: { url: `${origin}/e${i}`, events: ['warehouse.created'] },
        })
      ).webhook_endpoint.uuid,
    );
  const pg = new Client({ connectionString: config.databaseUrl });
  await pg.connect();
  for (const [name, value] of Object.entries(WORKER_DATABASE_SETTINGS))
    await pg.query(`SELECT set_config($1, $2, false)`, [name, value]);
  const [{ pid }] = (await pg.query('SELECT pg_backend_pid() AS pid')).rows;

  let written = 0;
  const run = async (withFilters: boolean): Promise<Variant> => {
    for (const [i, uuid] of endpoints.entries())
      await call('PATCH', `/int/v1/webhook-endpoints/${uuid}`, {
        filter: withFilters && i < filtered ? FILTER : null,
      });
    for (let i = 0; i < events; i += 64)
      await Promise.all(
        Array.from({ length: Math.min(64, events - i) }, () =>
          call('POST', '/inventory/int/v1/warehouses', {
            warehouse: {
              name: `W${written}`,
              address: 'a',
              city: 'c',
              state: 's',
              zip: 'z',
              capacity: written++,
            },
          }),
        ),
      );
    // The relay's statement over the whole backlog, batch by batch, then rolled back: the worker does it again.
    await pg.query('BEGIN');
    const before = procSeconds(pid) ?? 0;
    let claimed = 0;
    for (;;) {
      const rows = (await pg.query(FAN_OUT)).rows as { claimed: number | null }[];
      const batch = rows.find((row) => row.claimed !== null)?.claimed ?? 0;
      if (!batch) break;
      claimed += batch;
    }
    const relayCpu = (procSeconds(pid) ?? 0) - before;
    await pg.query('ROLLBACK');
    if (claimed !== events) throw new Error(`the fan-out claimed ${claimed} of ${events} events`);

    const expected = received + events * ENDPOINTS;
    const worker = startProcess('worker', env);
    const start = received;
    while (received === start) await sleep(5);
    const first = { at: performance.now(), count: received };
    while (received < expected) await sleep(5);
    const perSecond = (expected - first.count) / ((performance.now() - first.at) / 1000);
    await stopProcess(worker);
    return {
      deliveries_per_second: Math.round(perSecond),
      relay_postgresql_cpu_us_per_event: Math.round((relayCpu * 1e6) / events),
    };
  };

  const perRound: { without_filters: Variant; with_filters: Variant }[] = [];
  for (let round = 0; round < rounds; round++) {
    // Alternating which goes first, so a machine getting busier or quieter does not favour one.
    const first = await run(round % 2 === 1);
    const second = await run(round % 2 === 0);
    perRound.push(
      round % 2 === 1
        ? { with_filters: first, without_filters: second }
        : { without_filters: first, with_filters: second },
    );
  }
  const result = {
    endpoints: ENDPOINTS,
    filtered_endpoints: filtered,
    filter: FILTER,
    events_per_variant: events,
    deliveries_per_variant: events * ENDPOINTS,
    rounds,
    ratio_with_to_without: Number(
      median(
        perRound.map((r) => r.with_filters.deliveries_per_second / r.without_filters.deliveries_per_second),
      ).toFixed(3),
    ),
    deliveries_per_second: {
      without_filters: median(perRound.map((r) => r.without_filters.deliveries_per_second)),
      with_filters: median(perRound.map((r) => r.with_filters.deliveries_per_second)),
    },
    relay_postgresql_cpu_us_per_event: {
      without_filters: median(perRound.map((r) => r.without_filters.relay_postgresql_cpu_us_per_event)),
      with_filters: median(perRound.map((r) => r.with_filters.relay_postgresql_cpu_us_per_event)),
    },
    per_round: perRound,
    target: 'deliveries/s with filters within 5 % of without (ratio >= 0.95)',
  };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  const dir = join(__dirname, '..', '..', 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'webhooks-filters-latest.json'), JSON.stringify(result, null, 2));
  await pg.end();
  await client.close();
  await app.close();
  receiver.close();
}
