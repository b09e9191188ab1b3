import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';

/*
 * What tracing costs, A/B: api.bench and webhooks.bench run alternately (the order rotating each round)
 * against three builds of the api and worker:
 * - `before`: the code before tracing, BENCH_BASE_DIST (the dist/ of its build),
 * - `off`: this code with no OTEL_* set,
 * - `on`: this code exporting every span (OTLP/protobuf) to a local sink, a server here answering 200.
 * Reported: CPU per request (api process + its PostgreSQL backends) and per delivery (worker process +
 * PostgreSQL), each variant's median and spread over its runs. Writes bench/results/tracing-latest.json;
 * the benches' own latest results are left as they were.
 */

const ROOT = join(__dirname, '..', '..');
const RESULTS = join(ROOT, 'bench', 'results');
const BASE = process.env.BENCH_BASE_DIST;
const AB_ROUNDS = Number(process.env.BENCH_AB_ROUNDS ?? 2);
const BENCHES = (process.env.BENCH_AB_BENCHES ?? 'api,webhooks').split(',') as Bench[];
type Bench = 'api' | 'webhooks';
type Variant = 'before' | 'off' | 'on';
const VARIANTS: Variant[] = ['before', 'off', 'on'];

/** The settings each bench runs with here: the routes and phases the comparison reads, shortened. */
const BENCH_ENV: Record<Bench, Record<string, string>> = {
  api: { BENCH_ROUTES: process.env.BENCH_ROUTES ?? 'GET one,POST' },
  webhooks: {
    BENCH_EVENTS: process.env.BENCH_EVENTS ?? '5000',
    BENCH_BROKERS: 'none',
    BENCH_RATE_SECONDS: process.env.BENCH_RATE_SECONDS ?? '4',
    BENCH_NEIGHBOUR_BACKLOG: process.env.BENCH_NEIGHBOUR_BACKLOG ?? '500',
    BENCH_NEIGHBOUR_DELAY_MS: process.env.BENCH_NEIGHBOUR_DELAY_MS ?? '1000',
  },
};

/** A local OTLP/HTTP sink: counts what it is sent and answers 200, as a collector would. */
async function startSink() {
  const received = { requests: 0, bytes: 0 };
  const server = createServer((req, res) => {
    req.on('data', (chunk: Buffer) => (received.bytes += chunk.length));
    req.on('end', () => {
      received.requests++;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, received, server };
}

function variantEnv(variant: Variant, sink: string): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env };
  for (const name of Object.keys(env)) if (name.startsWith('OTEL_')) delete env[name];
  if (variant === 'before') {
    env.BENCH_API_SCRIPT = join(BASE!, 'apps', 'api', 'src', 'main.js');
    env.BENCH_WORKER_SCRIPT = join(BASE!, 'apps', 'worker', 'src', 'main.js');
  }
  if (variant === 'on') env.OTEL_EXPORTER_OTLP_ENDPOINT = sink;
  return env;
}

async function runBench(bench: Bench, env: Record<string, string | undefined>): Promise<any> {
  const script = join(ROOT, 'dist', 'bench', `${bench}.bench.js`);
  const child = spawn(process.execPath, [script], {
    env: { ...env, ...BENCH_ENV[bench] },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  if (code !== 0) throw new Error(`${bench}.bench exited with ${code}`);
  return JSON.parse(readFileSync(join(RESULTS, `${bench}-latest.json`), 'utf8'));
}

/** The figures compared: CPU µs per request by route (api + PostgreSQL), per delivery (worker + PostgreSQL). */
function figures(bench: Bench, result: any): Record<string, number> {
  if (bench === 'api') {
    const out: Record<string, number> = {};
    for (const row of result.routes) {
      out[`${row.route} cpu_us`] = row.api.cpu_us_per_request.server + row.api.cpu_us_per_request.postgresql;
      out[`${row.route} api_cpu_us`] = row.api.cpu_us_per_request.server;
      out[`${row.route} rps`] = row.api.rps;
    }
    const post = result.post_with_3_endpoints;
    out['POST with 3 endpoints cpu_us'] = post.cpu_us_per_request.server + post.cpu_us_per_request.postgresql;
    out['POST with 3 endpoints api_cpu_us'] = post.cpu_us_per_request.server;
    return out;
  }
  const delivery = result.cpu_us_per_item.delivery;
  return {
    'delivery cpu_us': delivery.worker + delivery.postgresql,
    'delivery worker_cpu_us': delivery.worker,
    'deliveries per second': result.deliveries_per_second,
    'latency p99 ms': result.latency_at_rate.p99_ms,
  };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

function summary(runs: Record<Variant, Record<string, number>[]>) {
  const names = Object.keys(runs.off[0] ?? {});
  return Object.fromEntries(
    names.map((name) => {
      const of = (variant: Variant) => runs[variant].map((run) => run[name]);
      const stats = Object.fromEntries(
        VARIANTS.map((v) => [v, { median: median(of(v)), min: Math.min(...of(v)), max: Math.max(...of(v)) }]),
      );
      const ratio = (v: Variant) => Number((median(of(v)) / median(of('before'))).toFixed(3));
      return [name, { ...stats, off_to_before: ratio('off'), on_to_before: ratio('on') }];
    }),
  );
}

async function main() {
  if (!BASE || !existsSync(join(BASE, 'apps', 'api', 'src', 'main.js')))
    throw new Error('set BENCH_BASE_DIST to the dist/ of a build of the code before tracing');
  const sink = await startSink();
  const kept = Object.fromEntries(
    BENCHES.map((bench) => [bench, readFileSync(join(RESULTS, `${bench}-latest.json`), 'utf8')]),
  );
  const runs: Partial<Record<Bench, Record<Variant, Record<string, number>[]>>> = {};
  for (const bench of BENCHES) runs[bench] = { before: [], off: [], on: [] };
  try {
    for (let round = 0; round < AB_ROUNDS; round++)
      for (const bench of BENCHES)
        for (const variant of VARIANTS.map((_, i) => VARIANTS[(i + round) % VARIANTS.length])) {
          const measured = figures(bench, await runBench(bench, variantEnv(variant, sink.url)));
          runs[bench]![variant].push(measured);
          process.stdout.write(`${bench} ${variant} (round ${round + 1}): ${JSON.stringify(measured)}\n`);
        }
  } finally {
    for (const bench of BENCHES) writeFileSync(join(RESULTS, `${bench}-latest.json`), kept[bench]);
    sink.server.close();
  }
  const result = {
    settings: { ab_rounds: AB_ROUNDS, api: BENCH_ENV.api, webhooks: BENCH_ENV.webhooks },
    exported_to_sink: sink.received,
    summary: Object.fromEntries(BENCHES.map((bench) => [bench, summary(runs[bench]!)])),
    runs,
  };
  mkdirSync(RESULTS, { recursive: true });
  writeFileSync(join(RESULTS, 'tracing-latest.json'), JSON.stringify(result, null, 2));
  process.stdout.write(`${JSON.stringify(result.summary, null, 2)}\n`);
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
});
