import { INestApplicationContext } from '@nestjs/common';
import { createCompany } from './support/accounts';
import { eventually, http } from './support/http';
import { freePort } from './support/ports';
import { Receiver } from './support/receiver';
import { TestApi, startApi } from './support/test-app';
import { FAST_WEBHOOKS, createEndpoint, deliveredCount, warehouse } from './support/webhooks';
import { startWorker } from './support/worker';

const METRICS_TOKEN = 'metrics-token-0123456789';
const ADMIN_TOKEN = 'admin-token-0123456789ab';
const W = '/inventory/int/v1/warehouses';

/** The value of one sample of the Prometheus text format, or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const labelText = /\{(.*)\}/.exec(line)?.[1] ?? '';
    if (wanted.every((pair) => labelText.split(',').includes(pair))) return Number(line.split(' ').pop());
  }
  return undefined;
}

function sum(text: string, name: string): number {
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
    .reduce((total, line) => total + Number(line.split(' ').pop()), 0);
}

describe('observability: /metrics and the queue dashboard', () => {
  let api: TestApi;
  let worker: INestApplicationContext;
  let receiver: Receiver;
  let workerMetrics: string;

  beforeAll(async () => {
    api = await startApi({ env: { ...FAST_WEBHOOKS, METRICS_TOKEN, ADMIN_TOKEN } });
    const port = await freePort();
    worker = await startWorker({ ...api.config, host: '127.0.0.1', metricsPort: port });
    workerMetrics = `http://127.0.0.1:${port}`;
    receiver = await new Receiver().start();
  });
  afterAll(async () => {
    await worker.close();
    await receiver.stop();
    await api.close();
  });

  it('counts deliveries as the receiver saw them, with queue, lag, endpoint and process series', async () => {
    const company = await createCompany(api, 'Metrics');
    const { endpoint } = await createEndpoint(api, company, `${receiver.url}/hook`, ['warehouse.created']);
    // The first three requests fail once each, so outcomes include retries.
    receiver.respond = (_request, index) => ({ status: index < 3 ? 500 : 200 });
    for (let i = 0; i < 15; i++) {
      expect((await http(api.url, 'POST', W, { key: company.key, body: warehouse(`m-${i}`) })).status).toBe(
        201,
      );
    }
    await eventually(async () => {
      return (await deliveredCount(api, endpoint.uuid)) === 15;
    }, 30_000);

    expect((await http(workerMetrics, 'GET', '/metrics')).status).toBe(401);
    const res = await http(workerMetrics, 'GET', '/metrics', {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    expect(res.status).toBe(200);
    const text = res.text;
    expect(receiver.requests).toHaveLength(18);
    expect(sum(text, 'wharf_webhook_deliveries_total')).toBe(receiver.requests.length);
    expect(sample(text, 'wharf_webhook_deliveries_total', { outcome: 'successful' })).toBe(15);
    expect(sample(text, 'wharf_webhook_deliveries_total', { outcome: 'retrying' })).toBe(3);
    expect(sum(text, 'wharf_webhook_attempt_duration_seconds_count')).toBe(receiver.requests.length);
    expect(sample(text, 'wharf_webhook_endpoint_failures', { endpoint: String(endpoint.uuid) })).toBe(3);
    expect(sample(text, 'wharf_webhook_queue_jobs', { state: 'waiting' })).toBe(0);
    expect(sample(text, 'wharf_webhook_queue_jobs', { state: 'delayed' })).toBe(0);
    expect(sample(text, 'wharf_outbox_lag_seconds')).toBe(0);
    expect(sample(text, 'wharf_process_cpu_user_seconds_total')).toBeGreaterThan(0);

    expect((await http(api.url, 'GET', '/metrics')).status).toBe(401);
    const apiText = (
      await http(api.url, 'GET', '/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
    ).text;
    expect(sample(apiText, 'wharf_http_requests_total', { method: 'POST', route: W, status: '201' })).toBe(
      15,
    );
    expect(
      sample(apiText, 'wharf_http_request_duration_seconds_count', {
        method: 'POST',
        route: W,
        status: '201',
      }),
    ).toBe(15);
  });

  it('/admin/queues needs the admin token and is read-only', async () => {
    expect((await http(api.url, 'GET', '/admin/queues')).status).toBe(401);
    const wrong = await http(api.url, 'GET', '/admin/queues', {
      headers: { authorization: 'Bearer not-the-token-at-all' },
    });
    expect(wrong.status).toBe(401);
    const bearer = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const page = await http(api.url, 'GET', '/admin/queues', { headers: bearer });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    const basic = { authorization: `Basic ${Buffer.from(`admin:${ADMIN_TOKEN}`).toString('base64')}` };
    const queues = await http(api.url, 'GET', '/admin/queues/api/queues', { headers: basic });
    expect(queues.status).toBe(200);
    expect(queues.body.queues).toEqual([
      expect.objectContaining({ name: 'webhook-deliveries', readOnlyMode: true }),
    ]);
    const retry = await http(api.url, 'PUT', '/admin/queues/api/queues/webhook-deliveries/retry/failed', {
      headers: bearer,
    });
    expect(retry.status).toBe(405);
  });

  it('is not mounted without ADMIN_TOKEN', async () => {
    const plain = await startApi();
    try {
      expect((await http(plain.url, 'GET', '/admin/queues')).status).toBe(404);
    } finally {
      await plain.close();
    }
  });
});
