import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { AppConfig, dropDatabase } from '@wharf/core';
import { eventually, http } from './support/http';
import { OtlpCollector, ReceivedSpan, SPAN_KIND, STATUS_ERROR } from './support/otlp-collector';
import { CLI, ROOT, Spawned, ensureBuilt, runNode } from './support/processes';
import { Receiver } from './support/receiver';
import { deleteQueueKeys, prepareDatabase, processEnv, query, testConfig } from './support/test-app';
import { FAST_WEBHOOKS } from './support/webhooks';

const API = join(ROOT, 'dist', 'apps', 'api', 'src', 'main.js');
const WORKER = join(ROOT, 'dist', 'apps', 'worker', 'src', 'main.js');
const ORDERS = '/fleet/int/v1/orders';
const ENDPOINTS = '/int/v1/webhook-endpoints';

/** A caller's own span: the api's request span must be its child. */
function callerTraceparent(): { traceparent: string; traceId: string; spanId: string } {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceparent: `00-${traceId}-${spanId}-01`, traceId, spanId };
}

const named = (spans: ReceivedSpan[], name: string) => spans.filter((span) => span.name === name);

describe('tracing across the queue (OpenTelemetry, OTLP/HTTP)', () => {
  let config: AppConfig;
  let env: Record<string, string>;
  let collector: OtlpCollector;
  let receiver: Receiver;
  let api: { process: Spawned; url: string };
  const workers: Spawned[] = [];
  let key: string;

  /** Exports to the test's collector; each process with its own OTLP encoding. */
  const tracingEnv = (protocol: string, process: string) => ({
    OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
    OTEL_BSP_SCHEDULE_DELAY: '100',
    OTEL_RESOURCE_ATTRIBUTES: `wharf.test.process=${process}`,
  });

  function startWorker(name: string, extra: Record<string, string> = {}): Spawned {
    const worker = runNode(WORKER, [], { ...env, ...tracingEnv('http/json', name), ...extra });
    workers.push(worker);
    return worker;
  }

  async function endpoint(path: string, settings: Record<string, unknown> = {}): Promise<string> {
    const created = await http(api.url, 'POST', ENDPOINTS, {
      key,
      body: { webhook_endpoint: { url: `${receiver.url}${path}`, events: ['order.created'], ...settings } },
    });
    expect(created.status).toBe(201);
    return created.body.webhook_endpoint.uuid;
  }

  /** Creates an order as a traced caller; the trace it starts. */
  async function createOrder(reference: string) {
    const caller = callerTraceparent();
    const created = await http(api.url, 'POST', ORDERS, {
      key,
      headers: { traceparent: caller.traceparent },
      body: { order: { reference } },
    });
    expect(created.status).toBe(201);
    return caller;
  }

  beforeAll(async () => {
    ensureBuilt();
    collector = await new OtlpCollector().start();
    receiver = await new Receiver().start();
    config = testConfig();
    await prepareDatabase(config);
    env = processEnv(config, FAST_WEBHOOKS);
    const apiProcess = runNode(API, [], {
      ...env,
      ...tracingEnv('http/protobuf', 'api'),
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
    });
    const port = await eventually(
      async () => apiProcess.output().match(/Server listening at http:\/\/[^\s"]+:(\d+)/)?.[1],
      60_000,
    );
    api = { process: apiProcess, url: `http://127.0.0.1:${port}` };
    const companies = runNode(CLI, ['companies:create', '--name', 'Traced', '--json'], env);
    expect((await companies.exited).code).toBe(0);
    key = JSON.parse(companies.output()).api_key;
  }, 300_000);

  afterAll(async () => {
    for (const running of [api?.process, ...workers]) running?.child.kill('SIGTERM');
    await Promise.all([api?.process, ...workers].map((running) => running?.exited));
    await receiver?.stop();
    await collector?.stop();
    await dropDatabase(config.databaseUrl);
    await deleteQueueKeys(config);
  });

  it('follows an order from its request through the outbox and fan-out to each attempt, in one trace; traceparent reaches only the endpoint that opted in', async () => {
    const plain = await endpoint('/plain');
    const opted = await endpoint('/opted', { propagate_trace: true });
    startWorker('worker-one');
    const caller = await createOrder('PO-TRACED');
    // Both deliveries arrived (the plain one is what shows it was sent without a traceparent), and the
    // trace holds the attempt spans of both (with their records).
    const [toPlain, toOpted] = await eventually(async () => {
      const arrived = ['/plain', '/opted'].map((path) => receiver.requests.find((r) => r.path === path));
      return arrived.every(Boolean) && arrived.map((request) => request!);
    }, 60_000);
    const trace = await eventually(async () => {
      const spans = collector.trace(caller.traceId);
      return named(spans, 'webhook attempt record').length === 2 && spans;
    }, 30_000);

    const [request] = trace.filter((span) => span.kind === SPAN_KIND.server);
    expect(request).toMatchObject({
      name: `POST ${ORDERS}`,
      parentSpanId: caller.spanId,
      resource: { 'service.name': 'wharf-api' },
      attributes: { 'http.request.method': 'POST', 'http.response.status_code': 201 },
      encoding: 'application/x-protobuf',
    });
    const [write] = named(trace, 'webhook events write');
    expect(write).toMatchObject({
      parentSpanId: request.spanId,
      attributes: { 'wharf.event.name': 'order.created' },
    });
    const [fanOut] = named(trace, 'webhook fan-out');
    expect(fanOut).toMatchObject({
      parentSpanId: write.spanId,
      resource: { 'service.name': 'wharf-worker', 'wharf.test.process': 'worker-one' },
      attributes: { 'wharf.deliveries.admitted': 2 },
      encoding: 'application/json',
    });
    const attempts = named(trace, 'webhook attempt');
    expect(attempts.map((span) => span.attributes['wharf.endpoint.uuid']).sort()).toEqual(
      [plain, opted].sort(),
    );
    for (const attempt of attempts) {
      expect(attempt).toMatchObject({
        kind: SPAN_KIND.client,
        parentSpanId: write.spanId,
        resource: { 'service.name': 'wharf-worker' },
        attributes: {
          'wharf.delivery.attempt': 1,
          'wharf.delivery.outcome': 'successful',
          'http.response.status_code': 200,
          'url.full': expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/(plain|opted)$/),
        },
      });
      // An attribute without a value (no error on a success) is left out, not sent empty.
      expect(attempt.attributes).not.toHaveProperty('error.type');
      const [record] = named(trace, 'webhook attempt record').filter(
        (s) => s.parentSpanId === attempt.spanId,
      );
      expect(record).toBeDefined();
    }

    // The opted-in endpoint got the traceparent naming its own attempt's span; the other got none.
    const optedAttempt = attempts.find((span) => span.attributes['wharf.endpoint.uuid'] === opted)!;
    expect(toOpted.headers.traceparent).toBe(`00-${caller.traceId}-${optedAttempt.spanId}-01`);
    expect(toPlain.headers).not.toHaveProperty('traceparent');
    // Neither payload carries trace context: it stays in the outbox row.
    for (const request of [toPlain, toOpted]) expect(request.body).not.toContain(caller.traceId);
    const [row] = await query(
      config,
      `SELECT trace_context FROM webhook_events WHERE name = 'order.created'`,
    );
    expect(row.trace_context).toBe(`00-${caller.traceId}-${write.spanId}-01`);
  }, 120_000);

  it('traces a delivery that fails twice and then succeeds as three attempts in the request’s trace, the retries in another worker process', async () => {
    const flaky = await endpoint('/flaky');
    const [first] = workers;
    let calls = 0;
    receiver.respond = (request) => {
      if (request.path !== '/flaky') return { status: 200 };
      calls++;
      // The first attempt's worker is stopped as it sends: it records that attempt while it drains, and
      // exports its spans as it exits; the retries are another process's.
      if (calls === 1) first.child.kill('SIGTERM');
      return { status: calls < 3 ? 500 : 200, body: 'not yet' };
    };
    const caller = await createOrder('PO-RETRIED');
    await first.exited;
    // Its spans are exported only as it shuts down: the batch processor would wait ten minutes.
    const second = startWorker('worker-two', { OTEL_BSP_SCHEDULE_DELAY: '600000' });
    await eventually(async () => calls === 3, 60_000);
    second.child.kill('SIGTERM');
    await second.exited;
    const attempts = named(collector.trace(caller.traceId), 'webhook attempt').filter(
      (span) => span.attributes['wharf.endpoint.uuid'] === flaky,
    );
    const [write] = await eventually(async () => {
      const found = named(collector.trace(caller.traceId), 'webhook events write');
      return found.length === 1 && found;
    });
    const byAttempt = [...attempts].sort(
      (a, b) =>
        Number(a.attributes['wharf.delivery.attempt']) - Number(b.attributes['wharf.delivery.attempt']),
    );
    expect(
      byAttempt.map((span) => [
        span.attributes['wharf.delivery.attempt'],
        span.attributes['wharf.delivery.outcome'],
        span.attributes['http.response.status_code'],
        span.resource['wharf.test.process'],
        span.parentSpanId,
        span.statusCode === STATUS_ERROR,
      ]),
    ).toEqual([
      [1, 'retrying', 500, 'worker-one', write.spanId, true],
      [2, 'retrying', 500, 'worker-two', write.spanId, true],
      [3, 'successful', 200, 'worker-two', write.spanId, false],
    ]);
  }, 180_000);
});
