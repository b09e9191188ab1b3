import 'reflect-metadata';
import { ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { dataSourceOptions } from '@wharf/core';
import { AccountsService } from '@wharf/accounts';
import { composeWharf } from '@wharf/webhooks';
import { DataSource } from 'typeorm';
import { Agent, request } from 'undici';
import {
  benchConfig,
  forkScript,
  percentile,
  sleep,
  startProcess,
  stopProcess,
  waitFor,
  withBenchDatabase,
} from './bench-support';
import type { HeldStats, ProxyRoute } from './delay-proxy';
import { freePort } from './ports';

/**
 * The stack across hosts: a delaying TCP proxy (delay-proxy.ts) between every pair that talks — api ↔
 * PostgreSQL, api ↔ Redis, worker ↔ PostgreSQL, worker ↔ Redis, worker → receiver — at each one-way delay of
 * BENCH_DELAYS. Per delay: req/s and p99 of the CRUD routes under load, each route's latency alone (from
 * which the round trips it makes follow), deliveries/s draining a backlog, and commit → receipt at a rate.
 */
const DELAYS = (process.env.BENCH_DELAYS ?? '0,0.5,2').split(',').map(Number);
/** The delays are measured in turn this many times: each figure is given as its median and range. */
const REPEAT = Number(process.env.BENCH_REPEAT ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const DURATION = Number(process.env.BENCH_DURATION ?? 3);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 1);
const ALONE = Number(process.env.BENCH_ALONE ?? 200);
const WAREHOUSES = Number(process.env.BENCH_WAREHOUSES ?? 2_000);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 2_000);
const RATE = Number(process.env.BENCH_RATE ?? 200);
const RATE_SECONDS = Number(process.env.BENCH_RATE_SECONDS ?? 5);
const W = '/inventory/int/v1/warehouses';
/** The webhook rounds create vehicles, to which alone the endpoint subscribes: the CRUD routes' warehouses leave no backlog. */
const V = '/fleet/int/v1/vehicles';

type Pair = 'api-postgresql' | 'api-redis' | 'worker-postgresql' | 'worker-redis' | 'worker-receiver';

/** The proxies' process, driven over IPC. */
class Proxies {
  private constructor(private readonly child: ChildProcess) {}

  static async start(routes: ProxyRoute[]): Promise<Proxies> {
    const child = forkScript(join(__dirname, 'delay-proxy.js'), {
      DELAY_PROXY_ROUTES: JSON.stringify(routes),
    });
    const proxies = new Proxies(child);
    await proxies.ask({}, 'ready');
    return proxies;
  }

  private ask<T>(message: object, answer: string): Promise<T> {
    return new Promise((resolve) => {
      const on = (reply: Record<string, unknown>) => {
        if (!(answer in reply)) return;
        this.child.off('message', on);
        resolve(reply[answer] as T);
      };
      this.child.on('message', on);
      if (Object.keys(message).length) this.child.send(message);
    });
  }

  setDelay(delayMs: number): Promise<number> {
    return this.ask({ delayMs }, 'delayMs');
  }

  stats(): Promise<Record<Pair, HeldStats>> {
    return this.ask({ stats: true }, 'stats');
  }

  stop(): Promise<void> {
    return stopProcess(this.child);
  }
}

/** `url` with its host and port replaced by the proxy's. */
function through(url: string, port: number): string {
  const parsed = new URL(url);
  parsed.hostname = '127.0.0.1';
  parsed.port = String(port);
  return parsed.toString();
}

async function seed(dataSource: DataSource, company: string): Promise<string[]> {
  await dataSource.query(
    `INSERT INTO warehouses (company_uuid, name, address, city, state, zip, capacity)
     SELECT $1, 'Warehouse ' || lpad(i::text, 6, '0'), i || ' Dock Road', 'City ' || (i % 50), 'ST', '00000', i
     FROM generate_series(1, $2) i`,
    [company, WAREHOUSES],
  );
  await dataSource.query('ANALYZE warehouses');
  return (await dataSource.query('SELECT uuid FROM warehouses')).map((r: { uuid: string }) => r.uuid);
}

function crudRoutes(uuids: string[]) {
  const pick = () => uuids[Math.floor(Math.random() * uuids.length)];
  let n = 0;
  const body = () =>
    JSON.stringify({
      warehouse: {
        name: `Hosts ${++n}`,
        address: '1 Quay',
        city: 'City 7',
        state: 'ST',
        zip: '0',
        capacity: n,
      },
    });
  return {
    'GET one': { method: 'GET', path: () => `${W}/${pick()}` },
    'GET list': { method: 'GET', path: () => `${W}?limit=30&sort=name&city=City%207` },
    POST: { method: 'POST', path: () => W, body },
    PUT: {
      method: 'PUT',
      path: () => `${W}/${pick()}`,
      body: () => JSON.stringify({ warehouse: { capacity: ++n } }),
    },
  } as Record<string, { method: string; path: () => string; body?: () => string }>;
}

type Route = ReturnType<typeof crudRoutes>[string];

function underLoad(url: string, headers: Record<string, string>, route: Route, duration: number) {
  return new Promise<{ rps: number; p50: number; p99: number; errors: number }>((resolve, reject) => {
    autocannon(
      {
        url,
        connections: CONNECTIONS,
        duration,
        headers,
        requests: [
          {
            method: route.method as 'GET',
            setupRequest: (r: any) => ({ ...r, path: route.path(), body: route.body?.() }),
          },
        ],
      },
      (error, result) => {
        if (error) return reject(error instanceof Error ? error : new Error(String(error)));
        resolve({
          rps: Math.round(result.requests.average),
          p50: result.latency.p50,
          p99: result.latency.p99,
          errors: result.non2xx + result.errors,
        });
      },
    );
  });
}

/** The route's median latency alone: ALONE requests one after another on one connection. */
async function alone(url: string, headers: Record<string, string>, route: Route): Promise<number> {
  const agent = new Agent({ connections: 1 });
  const times: number[] = [];
  for (let i = 0; i < ALONE; i++) {
    const started = performance.now();
    const res = await request(`${url}${route.path()}`, {
      method: route.method as 'GET',
      headers,
      body: route.body?.(),
      dispatcher: agent,
    });
    await res.body.text();
    if (i >= ALONE / 10) times.push(performance.now() - started);
  }
  await agent.close();
  times.sort((a, b) => a - b);
  return Number(percentile(times, 50).toFixed(3));
}

/**
 * What the requests alone exchanged with each server, a request on average, and how long the proxy held
 * each chunk and PostgreSQL took to answer: the request's latency less those is the api's (and the client's).
 */
function aloneWire(wire: Record<Pair, HeldStats>) {
  const pg = wire['api-postgresql'];
  return {
    round_trips_counted: {
      postgresql: Number((pg.exchanges / ALONE).toFixed(2)),
      redis: Number((wire['api-redis'].exchanges / ALONE).toFixed(2)),
    },
    postgresql_answer_chunks: Number((pg.answer_chunks / Math.max(1, pg.exchanges)).toFixed(2)),
    postgresql_server_p50_ms: pg.server_p50_ms,
    held_one_way: { p50_ms: pg.p50_ms, mean_ms: pg.mean_ms, p99_ms: pg.p99_ms },
  };
}

interface Deliveries {
  deliveries_per_second: number;
  commit_to_receipt: { p50_ms: number; p99_ms: number; delivered: number; events: number };
  /** One event at a time: commit → receipt, and the round trips each took on the wire, by pair. */
  alone: { p50_ms: number; round_trips_counted: Partial<Record<Pair, number>> };
}

/** Events sent one at a time for `alone`. */
const EVENTS_ALONE = Number(process.env.BENCH_EVENTS_ALONE ?? 50);
type Wire = () => Promise<Record<Pair, HeldStats>>;

/** The receiver, and the webhook half of a round: a backlog drained by a fresh worker, then a paced run. */
class Webhooks {
  readonly receipts = new Map<string, number>();
  private port = 0;

  async listen(): Promise<number> {
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        this.receipts.set(String(req.headers['webhook-id']), performance.now());
        res.writeHead(200).end();
      });
    });
    this.port = await freePort();
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    return this.port;
  }

  async round(
    api: string,
    headers: Record<string, string>,
    startWorker: () => ChildProcess,
    eventIds: () => Promise<Map<string, string>>,
    wire: Wire,
  ): Promise<{ worker: ChildProcess; result: Deliveries }> {
    const client = new Agent({ connections: 32 });
    const post = async (i: number) => {
      const res = await request(`${api}${V}`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ vehicle: { plate_number: `EV-${i}` } }),
        dispatcher: client,
      });
      const json = (await res.body.json()) as { vehicle: { uuid: string } };
      return json.vehicle.uuid;
    };
    for (let i = 0; i < EVENTS; i += 64)
      await Promise.all(Array.from({ length: Math.min(64, EVENTS - i) }, (_, j) => post(i + j)));
    this.receipts.clear();
    const worker = startWorker();
    while (!this.receipts.size) await sleep(5);
    const first = { at: performance.now(), count: this.receipts.size };
    while (this.receipts.size < EVENTS) await sleep(5);
    const perSecond = (EVENTS - first.count) / ((performance.now() - first.at) / 1000);

    this.receipts.clear();
    const committed = new Map<string, number>();
    const total = RATE * RATE_SECONDS;
    const paced = performance.now();
    const inflight: Promise<void>[] = [];
    for (let i = 0; i < total; i++) {
      const wait = paced + (i * 1000) / RATE - performance.now();
      if (wait > 0) await sleep(wait);
      inflight.push(post(EVENTS + i).then((uuid) => void committed.set(uuid, performance.now())));
    }
    await Promise.all(inflight);
    const deadline = performance.now() + 30_000;
    while (this.receipts.size < total && performance.now() < deadline) await sleep(20);
    const ids = await eventIds();
    const latencies = [...this.receipts]
      .map(([eventId, at]) => at - (committed.get(ids.get(eventId) ?? '') ?? NaN))
      .filter((ms) => !Number.isNaN(ms))
      .sort((a, b) => a - b);
    const delivered = this.receipts.size;
    const one = await this.oneAtATime(post, eventIds, wire);
    await client.close();
    return {
      worker,
      result: {
        alone: one,
        deliveries_per_second: Math.round(perSecond),
        commit_to_receipt: {
          p50_ms: Math.round(percentile(latencies, 50)),
          p99_ms: Math.round(percentile(latencies, 99)),
          delivered,
          events: total,
        },
      },
    };
  }

  /** Events one after another, each waited for at the receiver: the delivery path's own latency and round trips. */
  private async oneAtATime(
    post: (i: number) => Promise<string>,
    eventIds: () => Promise<Map<string, string>>,
    wire: Wire,
  ): Promise<Deliveries['alone']> {
    this.receipts.clear();
    const before = await wire();
    const committed = new Map<string, number>();
    for (let i = 0; i < EVENTS_ALONE; i++) {
      const had = this.receipts.size;
      const uuid = await post(1_000_000 + i);
      committed.set(uuid, performance.now());
      while (this.receipts.size === had) await sleep(1);
    }
    const after = await wire();
    const ids = await eventIds();
    const latencies = [...this.receipts]
      .map(([eventId, at]) => at - (committed.get(ids.get(eventId) ?? '') ?? NaN))
      .filter((ms) => !Number.isNaN(ms))
      .sort((a, b) => a - b);
    const per = (pair: Pair) =>
      Number(((after[pair].exchanges - before[pair].exchanges) / EVENTS_ALONE).toFixed(2));
    return {
      p50_ms: Number(percentile(latencies, 50).toFixed(1)),
      round_trips_counted: {
        'api-postgresql': per('api-postgresql'),
        'worker-postgresql': per('worker-postgresql'),
        'worker-redis': per('worker-redis'),
        'worker-receiver': per('worker-receiver'),
      },
    };
  }
}

async function main() {
  // NODE_ENV=test: production's https-only rule would refuse the local http receiver; nothing else differs.
  const { config, env } = benchConfig({ NODE_ENV: 'test' });
  await withBenchDatabase(config, async () => {
    const dataSource = new DataSource(dataSourceOptions(config.databaseUrl, composeWharf(config).manifests));
    await dataSource.initialize();
    const { company, api_key } = await new AccountsService(dataSource).createCompany('Hosts');
    const uuids = await seed(dataSource, company.uuid);
    const webhooks = new Webhooks();
    const receiverPort = await webhooks.listen();
    const pg = new URL(config.databaseUrl);
    const redis = new URL(config.redisUrl);
    const target = (pair: Pair): [string, number] =>
      pair.endsWith('postgresql')
        ? [pg.hostname, Number(pg.port || 5432)]
        : pair.endsWith('redis')
          ? [redis.hostname, Number(redis.port || 6379)]
          : ['127.0.0.1', receiverPort];
    const pairs: Pair[] = [
      'api-postgresql',
      'api-redis',
      'worker-postgresql',
      'worker-redis',
      'worker-receiver',
    ];
    const routes: ProxyRoute[] = [];
    for (const name of pairs) {
      const [targetHost, targetPort] = target(name);
      routes.push({ name, port: await freePort(), targetHost, targetPort });
    }
    const port = (pair: Pair) => routes.find((route) => route.name === pair)!.port;
    const proxies = await Proxies.start(routes);

    const apiPort = await freePort();
    const api = startProcess('api', {
      ...env,
      PORT: String(apiPort),
      DATABASE_URL: through(config.databaseUrl, port('api-postgresql')),
      REDIS_URL: through(config.redisUrl, port('api-redis')),
    });
    const workerEnv = {
      ...env,
      DATABASE_URL: through(config.databaseUrl, port('worker-postgresql')),
      REDIS_URL: through(config.redisUrl, port('worker-redis')),
    };
    const url = `http://127.0.0.1:${apiPort}`;
    await waitFor(`${url}/health`);
    const headers = { authorization: `Bearer ${api_key}`, 'content-type': 'application/json' };
    const endpoint = await request(`${url}/int/v1/webhook-endpoints`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        webhook_endpoint: {
          url: `http://127.0.0.1:${port('worker-receiver')}/hook`,
          events: ['vehicle.created'],
          max_in_flight: 100,
        },
      }),
    });
    if (endpoint.statusCode !== 201)
      throw new Error(`endpoint: ${endpoint.statusCode} ${await endpoint.body.text()}`);
    await endpoint.body.text();
    const eventIds = async () => {
      const rows: { event_id: string; uuid: string }[] = await dataSource.query(
        `SELECT event_id, payload->'data'->>'id' AS uuid FROM webhook_events WHERE name = 'vehicle.created'`,
      );
      return new Map(rows.map((row) => [row.event_id, row.uuid]));
    };

    const crud = crudRoutes(uuids);
    // Unmeasured: the api's code warmed up and its pools filled before the first round.
    for (const route of Object.values(crud)) await underLoad(url, headers, route, 2);
    const rounds = [];
    let worker: ChildProcess | undefined;
    const turns = Array.from({ length: REPEAT }, () => DELAYS).flat();
    for (const delay of turns) {
      await proxies.setDelay(delay);
      const routesMeasured: Record<string, object> = {};
      for (const [name, route] of Object.entries(crud)) {
        if (WARMUP) await underLoad(url, headers, route, WARMUP);
        const loaded = await underLoad(url, headers, route, DURATION);
        await proxies.setDelay(delay); // the proxies' tallies from here: the requests alone
        const alone_p50_ms = await alone(url, headers, route);
        routesMeasured[name] = { ...loaded, alone_p50_ms, alone_wire: aloneWire(await proxies.stats()) };
      }
      await proxies.setDelay(delay);
      if (worker) await stopProcess(worker);
      const hooks = await webhooks.round(
        url,
        headers,
        () => startProcess('worker', workerEnv),
        eventIds,
        () => proxies.stats(),
      );
      worker = hooks.worker;
      rounds.push({
        delay_ms: delay,
        routes: routesMeasured,
        webhooks: hooks.result,
        held_during_webhooks: await proxies.stats(),
        // The machine's load as the round ended: others' work shares its cores.
        load_average_1m: Number(loadavg()[0].toFixed(1)),
      });
      process.stdout.write(`delay ${delay} ms: ${JSON.stringify(rounds[rounds.length - 1])}\n`);
    }
    if (worker) await stopProcess(worker);
    await stopProcess(api);
    await proxies.stop();
    await dataSource.destroy();
    report(rounds);
  });
  process.exit(0);
}

type Round = {
  delay_ms: number;
  routes: Record<string, any>;
  webhooks: Deliveries;
  held_during_webhooks: Record<Pair, HeldStats>;
  load_average_1m: number;
};

/** `values`' median and range, as printed: `12 (10–15)`. */
function spread(values: number[], digits = 0): string {
  const sorted = [...values].sort((a, b) => a - b);
  const f = (n: number) => n.toFixed(digits);
  const median = percentile(sorted, 50);
  return sorted.length > 1 ? `${f(median)} (${f(sorted[0])}–${f(sorted[sorted.length - 1])})` : f(median);
}

/**
 * Adds to each GET alone the share of its median latency that its one round trip accounts for (held twice,
 * answered in PostgreSQL's median time), and the rest: the api's and the client's. A write's second exchange
 * is the relay's wake-up, sent after its answer, so the writes are left out.
 */
function breakDown(round: Round): void {
  for (const [name, measured] of Object.entries(round.routes)) {
    if (!name.startsWith('GET')) continue;
    const wire = measured.alone_wire;
    const trip = 2 * wire.held_one_way.p50_ms + wire.postgresql_server_p50_ms;
    measured.alone_breakdown = {
      round_trip_ms: Number(trip.toFixed(3)),
      api_and_client_ms: Number((measured.alone_p50_ms - trip).toFixed(3)),
    };
  }
}

/** Prints each figure's median and range over the repeats, and writes bench/results/hosts-latest.json. */
function report(rounds: Round[]) {
  rounds.forEach(breakDown);
  const result = {
    settings: {
      delays_ms: DELAYS,
      repeats: REPEAT,
      connections: CONNECTIONS,
      duration_s: DURATION,
      alone_requests: ALONE,
      warehouses: WAREHOUSES,
      events: EVENTS,
      rate: RATE,
      rate_seconds: RATE_SECONDS,
    },
    rounds,
  };
  const out = (line: string) => process.stdout.write(`${line}\n`);
  out(
    '\ndelay  route     req/s | p99 ms | alone p50 ms | pg+redis trips | answer chunks | pg p50 ms | held p50 ms | api+client ms',
  );
  for (const delay of DELAYS) {
    const of = rounds.filter((round) => round.delay_ms === delay);
    for (const name of Object.keys(of[0].routes)) {
      const m = of.map((round) => round.routes[name]);
      const r0 = m[0];
      const col = (pick: (r: any) => number, digits = 0) => spread(m.map(pick), digits);
      out(
        [
          `${String(delay).padEnd(5)}  ${name.padEnd(8)} ${col((r) => r.rps)}`,
          col((r) => r.p99),
          col((r) => r.alone_p50_ms, 1),
          `${col((r) => r.alone_wire.round_trips_counted.postgresql, 2)}+${col((r) => r.alone_wire.round_trips_counted.redis, 2)}`,
          col((r) => r.alone_wire.postgresql_answer_chunks, 2),
          col((r) => r.alone_wire.postgresql_server_p50_ms, 2),
          col((r) => r.alone_wire.held_one_way.p50_ms, 2),
          r0.alone_breakdown ? col((r) => r.alone_breakdown.api_and_client_ms, 2) : '–',
        ].join(' | '),
      );
    }
    const w = of.map((round) => round.webhooks);
    out(
      `${String(delay).padEnd(5)}  webhooks: ${spread(w.map((x) => x.deliveries_per_second))} deliveries/s; commit → receipt p50 ${spread(w.map((x) => x.commit_to_receipt.p50_ms))} ms, p99 ${spread(w.map((x) => x.commit_to_receipt.p99_ms))} ms; one event alone p50 ${spread(
        w.map((x) => x.alone.p50_ms),
        1,
      )} ms, round trips ${JSON.stringify(w[0].alone.round_trips_counted)}; held one way (worker ↔ PostgreSQL) p50 ${spread(
        of.map((round) => round.held_during_webhooks['worker-postgresql'].p50_ms),
        2,
      )} ms; load average ${spread(
        of.map((round) => round.load_average_1m),
        1,
      )}`,
    );
  }
  const dir = join(__dirname, '..', '..', 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'hosts-latest.json'), JSON.stringify(result, null, 2));
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
});
