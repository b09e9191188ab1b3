#!/usr/bin/env node
// Writes docs/performance.md from the benchmark results in bench/results/*.json, so the page always shows
// the figures those files hold. Run it after a bench run: `node scripts/performance-doc.js`
// (`--check` exits 1 when the page differs, as test/readme-docs.e2e-spec.ts does).
'use strict';
const { existsSync, readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');
const PAGE = join(ROOT, 'docs', 'performance.md');
const results = (name) => JSON.parse(readFileSync(join(ROOT, 'bench', 'results', name), 'utf8'));
/** A results file that may not be there (a round run on its own). */
const resultsIfAny = (name) => (existsSync(join(ROOT, 'bench', 'results', name)) ? results(name) : undefined);

const n = (value, digits = 0) =>
  value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const ratio = (value) => value.toFixed(2);

function table(header, rows) {
  const cells = [header, ...rows].map((row) => row.map(String));
  const widths = header.map((_, i) => Math.max(3, ...cells.map((row) => row[i].length)));
  const line = (row) => `| ${row.map((cell, i) => cell.padEnd(widths[i])).join(' | ')} |`;
  return [
    line(cells[0]),
    `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`,
    ...cells.slice(1).map(line),
  ].join('\n');
}

function apiSection(api) {
  const rows = api.routes.map((route) => [
    route.route,
    n(route.api.rps),
    n(route.limit.rps),
    n(route.peer.rps),
    ratio(route.ratio_to_limit),
    ratio(route.ratio_to_peer),
    `${n(route.api.cpu_us_per_request.server)} + ${n(route.api.cpu_us_per_request.postgresql)}`,
    `${n(route.limit.cpu_us_per_request.server)} + ${n(route.limit.cpu_us_per_request.postgresql)}`,
    `${route.api.p50_ms} / ${route.api.p99_ms}`,
  ]);
  const s = api.settings;
  const based = api.routes.filter((route) => route.base);
  const baseSection = based.length
    ? `

Against an earlier build${s.base_commit ? ` (${s.base_commit})` : ''}, its api run as a fourth side on the same database
(\`BENCH_BASE_DIST=<its dist/> npm run bench:api\`, each api with its own Node flags):

${table(
  ['route', 'api req/s', 'earlier req/s', 'api ÷ earlier', 'CPU µs api (server + pg)', 'CPU µs earlier'],
  based.map((route) => [
    route.route,
    n(route.api.rps),
    n(route.base.rps),
    ratio(route.ratio_to_base),
    `${n(route.api.cpu_us_per_request.server)} + ${n(route.api.cpu_us_per_request.postgresql)}`,
    `${n(route.base.cpu_us_per_request.server)} + ${n(route.base.cpu_us_per_request.postgresql)}`,
  ]),
)}`
    : '';
  const post = api.post_with_3_endpoints;
  const keyed = api.post_with_idempotency_key;
  const rss = api.peak_rss_mb;
  const targets = api.targets;
  return `## The api against a hand-written limit and a stock NestJS peer

\`\`\`sh
npm run bench:api        # writes bench/results/api-latest.json
\`\`\`

${n(s.warehouses)} warehouses, each with a location, 3 sections and 3 docks; ${s.connections} connections, ${s.rounds}
rounds of ${s.duration_s} s per route (after ${s.warmup_s} s of warm-up), the ${based.length ? "four" : "three"} servers alternating. "limit" is plain
Fastify + pg with one statement per route, "peer" stock NestJS with Express and TypeORM repositories
(\`bench/references/\`). CPU is µs per request of the server process and of PostgreSQL.

${table(
  [
    'route',
    'api req/s',
    'limit req/s',
    'peer req/s',
    'api ÷ limit',
    'api ÷ peer',
    'CPU µs api (server + pg)',
    'CPU µs limit',
    'api p50 / p99 ms',
  ],
  rows,
)}

- POST with three webhook endpoints subscribed: ${n(post.rps)} req/s, ${post.ratio_to_post_without.toFixed(3)} of POST measured just before with them
  disabled (${n(post.post_without_rps)} req/s).${
    keyed
      ? `
- POST with an \`Idempotency-Key\` on every request: ${n(keyed.rps)} req/s, ${keyed.ratio_to_post_without.toFixed(3)} of POST without one in the
  same rounds (${n(keyed.post_without_rps)} req/s); CPU µs ${n(keyed.cpu_us_per_request.server)} + ${n(keyed.cpu_us_per_request.postgresql)} against ${n(keyed.post_without_cpu_us_per_request.server)} + ${n(keyed.post_without_cpu_us_per_request.postgresql)}.`
      : ''
  }
- Peak RSS under the bench: api ${rss.api} MB, limit ${rss.limit} MB, peer ${rss.peer} MB.
- Targets: api ÷ limit ≥ ${targets.ratio_to_limit}, api ÷ peer ≥ ${targets.ratio_to_peer}, api peak RSS ≤ ${targets.api_peak_rss_mb} MB,
  POST with endpoints ≥ ${targets.post_with_3_endpoints} of POST without${
    targets.post_with_idempotency_key ? `, keyed POST ≥ ${targets.post_with_idempotency_key} of POST` : ''
  }.${baseSection}`;
}

function scaleSection(scale) {
  const [small, large] = scale.settings.sizes;
  const names = Object.keys(scale.results[small]);
  const rows = names.map((name) => {
    const a = scale.results[small][name];
    const b = scale.results[large][name];
    return [
      name,
      n(a.single_ms, 1),
      n(b.single_ms, 1),
      ratio(b.single_ms / a.single_ms),
      `${a.p50_ms} / ${a.p99_ms}`,
      `${b.p50_ms} / ${b.p99_ms}`,
    ];
  });
  const t = scale.targets;
  return `## List pages at ${n(small)} and ${n(large)} warehouses

\`\`\`sh
npm run bench:api -- --scale        # writes bench/results/api-scale.json (sizes: BENCH_SCALE_ROWS=${scale.settings.sizes.join(',')})
\`\`\`

One company with ${n(small)}, then ${n(large)} warehouses with their location, sections and docks. "single" is the best of
3 requests alone; p50 / p99 under ${scale.settings.connections} connections for ${scale.settings.duration_s} s.

${table(
  [
    'request',
    `single ms at ${n(small)}`,
    `single ms at ${n(large)}`,
    `${n(large)} ÷ ${n(small)}`,
    `p50 / p99 ms at ${n(small)}`,
    `p50 / p99 ms at ${n(large)}`,
  ],
  rows,
)}

Targets: a first page under ${t.first_page_ms} ms and a search under ${t.search_ms} ms at ${n(large)}, each within ${t.ratio_to_small}× its time at
${n(small)}. \`page=30000\` reads the records it skips (a cursor does not): it is there to show the difference.`;
}

function webhooksSection(w) {
  const cpu = w.cpu_us_per_item;
  const latency = w.latency_at_rate;
  const neighbour = w.noisy_neighbour;
  const t = w.targets;
  return `## Webhook delivery

\`\`\`sh
npm run bench:webhooks        # writes bench/results/webhooks-latest.json
\`\`\`

${n(w.events)} events to one endpoint, ${w.rounds} rounds; each round also runs two references on the same
machine state: a raw BullMQ no-op worker, and the "floor", a BullMQ worker that POSTs each job's body to the
same receiver (any pipeline with one BullMQ job per delivery pays at least that). Rates are medians of the
rounds; CPU is µs per delivery (or per job) by process.

${table(
  ['', 'per second', '÷ floor', 'CPU µs (worker, PostgreSQL, Redis, receiver)', 'CPU ÷ floor'],
  [
    [
      'durable deliveries',
      n(w.deliveries_per_second),
      w.ratio_to_floor.toFixed(3),
      `${cpu.delivery.total} (${cpu.delivery.worker}, ${cpu.delivery.postgresql}, ${cpu.delivery.redis}, ${cpu.delivery.receiver})`,
      w.cpu_ratio_to_floor.toFixed(3),
    ],
    [
      'floor: BullMQ + HTTP',
      n(w.floor_bullmq_plus_http_per_second),
      '1.00',
      `${cpu.floor.total} (${cpu.floor.worker}, ${cpu.floor.postgresql}, ${cpu.floor.redis}, ${cpu.floor.receiver})`,
      '1.00',
    ],
    [
      'BullMQ no-op',
      n(w.raw_bullmq_noop_jobs_per_second),
      ratio(w.raw_bullmq_noop_jobs_per_second / w.floor_bullmq_plus_http_per_second),
      `${cpu.noop.total} (${cpu.noop.bench_worker}, ${cpu.noop.postgresql}, ${cpu.noop.redis}, –)`,
      '',
    ],
  ],
)}

- Latency from commit to receipt at ${n(latency.events_per_second)} events/s (${n(latency.events)} events): p50 ${latency.p50_ms} ms, p95 ${latency.p95_ms} ms, p99 ${latency.p99_ms} ms.
- The same while another endpoint of the company answers after ${n(neighbour.neighbour_receiver_delay_ms)} ms with ${n(neighbour.neighbour_pending_at_start)} deliveries
  waiting: p50 ${neighbour.p50_ms} ms, p95 ${neighbour.p95_ms} ms, p99 ${neighbour.p99_ms} ms.
- Targets: deliveries ÷ floor ${t.ratio_to_floor}, CPU ÷ floor ${t.cpu_ratio_to_floor}, p99 ${t.p99_ms} ms, p99 beside the slow endpoint
  ${t.noisy_neighbour_p99_ms} ms.

${brokersSection(w.brokers ?? resultsIfAny('webhooks-brokers-latest.json')?.brokers)}`;
}

/** The broker rounds of bench:webhooks (bench/broker-rounds.ts), when the results have them. */
function brokersSection(b) {
  const about = `### Broker destinations

One round per broker type (\`BENCH_BROKERS=only\` runs them alone, into \`webhooks-brokers-latest.json\`;
\`none\` skips them), \`BENCH_BROKER_EVENTS\` deliveries each: a backlog drained by one worker to the real
broker, counted by a consumer of it. For RabbitMQ the round also runs its floor on the same exchange: BullMQ
jobs, each publishing one persistent message with amqplib on a confirm channel and waiting for the ack, no
database. Target: RabbitMQ deliveries ÷ floor >= 0.85.`;
  if (!b) return `${about}\n\nThe results above predate the broker rounds: the next full run adds them.`;
  const cpu = (c) => `${c.total} (${c.worker}, ${c.postgresql}, ${c.redis}, ${c.consumer})`;
  const r = b.rabbitmq;
  return `${about}

${table(
  ['', 'per second', '÷ floor', 'CPU µs (worker, PostgreSQL, Redis, consumer)', 'CPU ÷ floor'],
  [
    [
      'RabbitMQ (confirms)',
      n(r.deliveries_per_second),
      r.ratio_to_floor.toFixed(3),
      cpu(r.cpu_us_per_delivery),
      r.cpu_ratio_to_floor.toFixed(3),
    ],
    [
      'floor: BullMQ + amqplib confirm',
      n(r.floor_bullmq_plus_amqp_confirm_per_second),
      '1.00',
      cpu(r.cpu_us_per_floor_message),
      '1.00',
    ],
    ...['nats', 'mqtt', 'redis_stream'].map((type) => [
      type,
      n(b[type].deliveries_per_second),
      '',
      cpu(b[type].cpu_us_per_delivery),
      '',
    ]),
  ],
)}`;
}

function sseSection(s) {
  const t = s.throughput_rps;
  const r = s.row_to_clients_ms;
  return `## Live activity streams (Server-Sent Events)

\`\`\`sh
npm run bench:sse        # writes bench/results/sse-latest.json
\`\`\`

${n(s.settings.clients)} idle \`GET /int/v1/webhook-activity/stream\` streams of ${n(s.settings.companies)} companies on one api process
(connected in ${s.connect_seconds} s; ${n(s.streams_open_at_end)} still open at the end), then ${n(s.settings.rows)} request-log rows of one
company, inserted one at a time, each to be read by that company's ${s.settings.watched} streams. GET one and list are
measured in ${s.settings.rounds} rounds of ${s.settings.duration_s} s each without the streams, then with them connected (the best round of each).

- RSS of the api: ${n(s.rss_mb.before)} MB before, ${n(s.rss_mb.after)} MB with the streams: ${s.rss_kb_per_client} KB per stream.
- From a row's INSERT to its arrival at each of the ${s.settings.watched} streams: p50 ${r.p50} ms, p99 ${r.p99} ms, max ${r.max} ms
  (${n(r.deliveries)} of ${n(r.expected)} arrivals).

${table(
  ['route', 'req/s without streams', 'req/s with streams', 'with ÷ without'],
  [
    ['GET one', n(t.get_one.without), n(t.get_one.with), ratio(s.ratio_with_to_without.get_one)],
    ['list', n(t.list.without), n(t.list.with), ratio(s.ratio_with_to_without.list)],
  ],
)}`;
}

function soakSection(soak) {
  const rows = soak.per_minute.map((m) => [
    m.minute,
    n(m.created_per_second),
    m.p50_ms,
    m.p99_ms,
    m.total_mb.toFixed(1),
    `${m.tables.webhook_events.partitions} / ${m.tables.webhook_request_logs.partitions}`,
    n(m.tables.webhook_events.dead_tuples + m.tables.webhook_request_logs.dead_tuples),
  ]);
  const last = soak.last_half_total_mb;
  return `## Data lifecycle: soak

\`\`\`sh
npm run bench:soak            # writes bench/results/soak-latest.json
\`\`\`

Warehouses created at ${n(soak.rate_per_second)}/s for ${soak.minutes} minutes, each delivered to one endpoint, with
${soak.partition_interval} partitions and ${soak.retention} retention for \`webhook_events\` and \`webhook_request_logs\`
(see [data lifecycle](data-lifecycle.md)). Latency is from a create's 201 to the receipt of its webhook.

${table(
  [
    'minute',
    'creates/s',
    'p50 ms',
    'p99 ms',
    'size MB (both tables)',
    'partitions (events / logs)',
    'dead tuples',
  ],
  rows,
)}

- ${n(soak.created)} created, ${n(soak.delivered)} delivered, ${soak.failed_creates} failed creates, ${soak.undelivered} undelivered.
- Size over the last half of the run: ${last.min}–${last.max} MB, ±${(soak.last_half_spread_of_mean * 100).toFixed(1)} % of its
  mean ${last.mean} MB (target ±15 %); the highest p99 of a minute ${soak.max_p99_ms} ms (target < 100 ms).`;
}

/** A variant's figure as median and spread of its runs. */
const spread = (stats) => `${n(stats.median)} (${n(stats.min)}–${n(stats.max)})`;

/** How far apart runs of one build are: the largest range of a variant, as a share of its median. */
const rangeOf = (stats) =>
  Math.max(...['before', 'off', 'on'].map((v) => (stats[v].max - stats[v].min) / stats[v].median));

/**
 * Tracing off against the code before: within 2 % only when the ranges allow saying so; otherwise whether
 * the two builds' ranges overlap, or how far apart they lie.
 */
function offVerdict(stats) {
  const noise = rangeOf(stats);
  if (Math.abs(stats.off_to_before - 1) <= 0.02 && noise <= 0.02) return 'within 2 %';
  const overlap = stats.off.min <= stats.before.max && stats.before.min <= stats.off.max;
  if (overlap) return `ranges overlap (one build's runs ±${(noise * 50).toFixed(0)} %)`;
  const apart =
    stats.off.min > stats.before.max ? stats.off.min / stats.before.max : stats.off.max / stats.before.min;
  return `ranges apart by ${((apart - 1) * 100).toFixed(0)} % (one build's runs ±${(noise * 50).toFixed(0)} %)`;
}

function tracingSection(t) {
  if (!t) return '';
  const cpuRows = (bench, labels) =>
    Object.entries(labels).map(([key, label]) => {
      const stats = t.summary[bench][key];
      return [
        label,
        spread(stats.before),
        spread(stats.off),
        ratio(stats.off_to_before),
        offVerdict(stats),
        spread(stats.on),
        `${ratio(stats.on_to_before)} (${stats.on.median >= stats.before.median ? '+' : ''}${n(stats.on.median - stats.before.median)} µs)`,
      ];
    });
  const rows = [
    ...cpuRows('api', {
      'GET one cpu_us': 'GET one: api + pg',
      'GET one api_cpu_us': 'GET one: api',
      'POST cpu_us': 'POST: api + pg',
      'POST api_cpu_us': 'POST: api',
      'POST with 3 endpoints cpu_us': 'POST, 3 endpoints: api + pg',
    }),
    ...cpuRows('webhooks', {
      'delivery cpu_us': 'delivery: worker + pg',
      'delivery worker_cpu_us': 'delivery: worker',
    }),
  ];
  const maxRange = Math.max(
    ...['api', 'webhooks'].flatMap((bench) => Object.values(t.summary[bench]).map(rangeOf)),
  );
  return `

## Tracing

\`\`\`sh
BENCH_BASE_DIST=<dist of a build without tracing> npm run bench:tracing   # writes bench/results/tracing-latest.json
\`\`\`

\`bench:api\` (${t.settings.api.BENCH_ROUTES}) and \`bench:webhooks\` (${n(Number(t.settings.webhooks.BENCH_EVENTS))} events a round, brokers left out), each run ${t.settings.ab_rounds} times per build, the order
of the builds rotating: "before" is the code without tracing, "off" this code with no \`OTEL_*\` set, "on" this code
exporting every span (OTLP/protobuf, batched) to a local sink (${n(t.exported_to_sink.requests)} exports, ${n(t.exported_to_sink.bytes / 1e6, 1)} MB in all). CPU is µs per request
(the api process, with PostgreSQL's) or per delivery (the worker process, with PostgreSQL's): the median of a
build's runs, and their range.

${table(['CPU µs per item', 'before', 'off', 'off ÷ before', 'off against before', 'on', 'on ÷ before'], rows)}

Runs of one build differ by up to ${(maxRange * 100).toFixed(0)} % here (the machine is shared with other benchmarks), far more
than the 2 % asked of tracing off: these runs can neither show nor refute it, and a gap between two runs of
different builds says as little as one between two runs of the same build. By construction, with no \`OTEL_*\` set
no OpenTelemetry module is loaded, the request span stages are on no route's plan and the remaining work is
a check of one variable per write, fan-out batch and attempt. With tracing on, a request is one span (two
with a webhook event: its write) and a delivery three (fan-out, attempt, record).`;
}

function page() {
  return `# Performance

The figures below are those of the result files in \`bench/results/\`, written by the command above each table
on a 2-core machine that PostgreSQL, Redis and the load generator share. Absolute rates move with the machine
(the same code gives very different req/s on different machines, and from one run to the next on a shared
one); the ratios to the references measured in the same run, and CPU per request, are what to compare. This
page is generated from those files: \`node scripts/performance-doc.js\` after a bench run (\`npm test\` fails
while it differs). Their history is in git.

${apiSection(results('api-latest.json'))}

${scaleSection(results('api-scale.json'))}

${webhooksSection(results('webhooks-latest.json'))}${tracingSection(resultsIfAny('tracing-latest.json'))}

${soakSection(results('soak-latest.json'))}

${sseSection(results('sse-latest.json'))}
`;
}

module.exports = { page };

if (require.main === module) {
  const text = page();
  if (process.argv[2] === '--check') {
    let current = '';
    try {
      current = readFileSync(PAGE, 'utf8');
    } catch {
      // missing: differs
    }
    if (current !== text) {
      process.stderr.write(
        'docs/performance.md differs from bench/results: run node scripts/performance-doc.js\n',
      );
      process.exitCode = 1;
    }
  } else {
    writeFileSync(PAGE, text);
  }
}
