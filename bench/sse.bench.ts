import { readFileSync, writeFileSync } from 'node:fs';
import { ClientRequest, IncomingMessage, request } from 'node:http';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { dataSourceOptions } from '@wharf/core';
import { AccountsService } from '@wharf/accounts';
import { composeWharf } from '@wharf/webhooks';
import { DataSource } from 'typeorm';
import {
  benchConfig,
  percentile,
  sleep,
  startProcess,
  stopProcess,
  withBenchDatabase,
} from './bench-support';

/*
 * The live stream's cost on the api: CLIENTS idle SSE streams (COMPANIES companies × their clients), the
 * RSS they add per stream, how long a new log row of one company takes to reach that company's streams,
 * and GET one / list throughput with the streams connected against without, in the same run.
 */
const CLIENTS = Number(process.env.BENCH_SSE_CLIENTS ?? 10_000);
const COMPANIES = Number(process.env.BENCH_SSE_COMPANIES ?? 100);
const ROWS = Number(process.env.BENCH_SSE_ROWS ?? 200);
const DURATION = Number(process.env.BENCH_SSE_DURATION ?? 10);
const ROUNDS = Number(process.env.BENCH_SSE_ROUNDS ?? 2);
const PORT = Number(process.env.BENCH_SSE_PORT ?? 3411);
const RESULTS = join(__dirname, '..', '..', 'bench', 'results', 'sse-latest.json');

const rssMb = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

interface Stream {
  req: ClientRequest;
  res?: IncomingMessage;
}

/** Opens one SSE stream; `onEvent` gets each event's data line (only the watched streams parse). */
function openStream(key: string, onData?: (text: string) => void): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: PORT,
        path: '/int/v1/webhook-activity/stream',
        headers: { authorization: `Bearer ${key}` },
        agent: false,
      },
      (res) => {
        if (res.statusCode !== 200) return reject(new Error(`stream answered ${res.statusCode}`));
        res.setEncoding('utf8');
        if (onData) res.on('data', onData);
        else res.resume();
        resolve({ req, res });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

function throughput(url: string, key: string, path: () => string): Promise<number> {
  return new Promise((resolve, reject) =>
    autocannon(
      {
        url,
        connections: 10,
        duration: DURATION,
        headers: { authorization: `Bearer ${key}` },
        requests: [{ method: 'GET', setupRequest: (r: any) => ({ ...r, path: path() }) }],
      },
      (error, result) =>
        error
          ? reject(error instanceof Error ? error : new Error(String(error)))
          : resolve(result.requests.average),
    ),
  );
}

async function main() {
  const { config, env } = benchConfig({ PORT: String(PORT), HOST: '127.0.0.1' });
  await withBenchDatabase(config, async () => {
    const dataSource = new DataSource(dataSourceOptions(config.databaseUrl, composeWharf(config).manifests));
    await dataSource.initialize();
    const accounts = new AccountsService(dataSource);
    const companies: Awaited<ReturnType<AccountsService['createCompany']>>[] = [];
    for (let i = 0; i < COMPANIES; i++) companies.push(await accounts.createCompany(`SSE ${i}`));
    const api = startProcess('api', env);
    const url = `http://127.0.0.1:${PORT}`;
    try {
      for (
        let i = 0;
        (await fetch(`${url}/health`).then(
          (r) => r.status,
          () => 0,
        )) !== 200;
        i++
      ) {
        if (i > 150) throw new Error('the api did not come up');
        await sleep(200);
      }
      const key = companies[0].api_key;
      const endpoint = (await (
        await fetch(`${url}/int/v1/webhook-endpoints`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ webhook_endpoint: { url: 'https://127.0.0.1:9443/none', events: ['*'] } }),
        })
      ).json()) as { webhook_endpoint: { uuid: string } };
      const endpointUuid = endpoint.webhook_endpoint.uuid;
      const warehouses: string[] = [];
      for (let i = 0; i < 200; i++) {
        const created = await fetch(`${url}/inventory/int/v1/warehouses`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            warehouse: {
              name: `W ${i}`,
              address: '1 Quay',
              city: 'City',
              state: 'ST',
              zip: '0',
              capacity: i,
            },
          }),
        });
        warehouses.push(((await created.json()) as any).warehouse.uuid);
      }
      const one = () =>
        `/inventory/int/v1/warehouses/${warehouses[Math.floor(Math.random() * warehouses.length)]}`;
      const list = () => '/inventory/int/v1/warehouses?limit=25&sort=name';

      // Rounds of: GET one and list without streams, the streams connected, the same with them, then closed.
      await throughput(url, key, one);
      const without = { one: [] as number[], list: [] as number[] };
      const withStreams = { one: [] as number[], list: [] as number[] };
      const arrivals = new Map<string, number[]>();
      const watched = Math.min(100, Math.floor(CLIENTS / COMPANIES));
      // Company 0's first `watched` streams parse their events; every other one only reads.
      const connectAll = async () => {
        const streams: Stream[] = [];
        for (let i = 0; i < CLIENTS; i += 250) {
          const batch = [];
          for (let j = i; j < Math.min(CLIENTS, i + 250); j++) {
            const company = companies[j % COMPANIES];
            const watch = j % COMPANIES === 0 && j / COMPANIES < watched;
            let buffer = '';
            const seen = new Set<string>();
            const onData = (text: string) => {
              buffer += text;
              for (const match of buffer.matchAll(/"event_id":"(bench_\d+)"/g)) {
                if (seen.has(match[1])) continue;
                seen.add(match[1]);
                arrivals.set(match[1], [...(arrivals.get(match[1]) ?? []), performance.now()]);
              }
              buffer = buffer.slice(buffer.lastIndexOf('\n\n') + 1);
            };
            batch.push(openStream(company.api_key, watch ? onData : undefined));
          }
          streams.push(...(await Promise.all(batch)));
        }
        return streams;
      };
      let rssBefore = 0;
      let rssAfter = 0;
      let connectSeconds = 0;
      let open = CLIENTS;
      const latencies: number[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        without.one.push(await throughput(url, key, one));
        without.list.push(await throughput(url, key, list));
        await sleep(2000);
        if (r === 0) rssBefore = rssMb(api.pid!);
        const started = Date.now();
        const streams = await connectAll();
        if (r === 0) connectSeconds = (Date.now() - started) / 1000;
        await sleep(5000);
        if (r === 0) {
          rssAfter = rssMb(api.pid!);
          // A row of company 0 at a time, as the record stage writes it; its arrival at each watched stream.
          for (let i = 0; i < ROWS; i++) {
            const id = `bench_${i}`;
            const at = performance.now();
            await dataSource.query(
              `INSERT INTO webhook_request_logs (company_uuid, webhook_endpoint_uuid, event_id, event, attempt, url,
                 request_headers, request_body, duration_ms, status, sent_at)
               VALUES ($1, $2, $3, 'order.updated', 1, 'http://127.0.0.1:9/none', '{}', '{}', 5, 'successful', now())`,
              [companies[0].company.uuid, endpointUuid, id],
            );
            for (let wait = 0; (arrivals.get(id)?.length ?? 0) < watched && wait < 500; wait++)
              await sleep(2);
            for (const t of arrivals.get(id) ?? []) latencies.push(t - at);
            await sleep(20);
          }
        }
        withStreams.one.push(await throughput(url, key, one));
        withStreams.list.push(await throughput(url, key, list));
        open = Math.min(open, streams.filter((s) => s.res && !s.res.destroyed && s.res.readable).length);
        for (const stream of streams) stream.req.destroy();
        await sleep(2000);
      }
      latencies.sort((a, b) => a - b);
      const delivered = latencies.length;

      const best = (values: number[]) => Math.round(Math.max(...values));
      const result = {
        date: new Date().toISOString(),
        settings: {
          clients: CLIENTS,
          companies: COMPANIES,
          watched,
          rows: ROWS,
          duration_s: DURATION,
          rounds: ROUNDS,
        },
        connect_seconds: Math.round(connectSeconds * 10) / 10,
        streams_open_at_end: open,
        rss_mb: { before: Math.round(rssBefore), after: Math.round(rssAfter) },
        rss_kb_per_client: Math.round((((rssAfter - rssBefore) * 1024) / CLIENTS) * 10) / 10,
        row_to_clients_ms: {
          deliveries: delivered,
          expected: ROWS * watched,
          p50: Math.round(percentile(latencies, 50) * 10) / 10,
          p99: Math.round(percentile(latencies, 99) * 10) / 10,
          max: Math.round(latencies[latencies.length - 1] * 10) / 10,
        },
        throughput_rps: {
          get_one: { without: best(without.one), with: best(withStreams.one) },
          list: { without: best(without.list), with: best(withStreams.list) },
        },
        ratio_with_to_without: {
          get_one: Math.round((best(withStreams.one) / best(without.one)) * 1000) / 1000,
          list: Math.round((best(withStreams.list) / best(without.list)) * 1000) / 1000,
        },
      };
      process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      writeFileSync(RESULTS, `${JSON.stringify(result, null, 2)}\n`);
    } finally {
      await stopProcess(api);
      await dataSource.destroy();
    }
  });
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
});
