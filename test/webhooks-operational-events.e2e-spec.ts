import { AddressInfo, createServer } from 'node:net';
import { INestApplicationContext } from '@nestjs/common';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { Webhook } from 'standardwebhooks';
import { TestCompany, createCompany } from './support/accounts';
import { eventually, http } from './support/http';
import { Receiver } from './support/receiver';
import { TestApi, startApi } from './support/test-app';
import { FAST_WEBHOOKS, createEndpoint, sql, warehouse } from './support/webhooks';
import { startWorker } from './support/worker';

const OPERATIONAL = [
  'endpoint.disabled',
  'endpoint.enabled',
  'endpoint.throttled',
  'endpoint.unthrottled',
  'endpoint.recovered',
  'delivery.exhausted',
];
/** Every event: `*` (the data events) and the operational events, which `*` leaves out. */
const EVERYTHING = ['*', ...OPERATIONAL];

const W = '/inventory/int/v1/warehouses';
const E = '/int/v1/webhook-endpoints';

describe('webhooks: operational events through the outbox', () => {
  let api: TestApi;
  let worker: INestApplicationContext;
  let receiver: Receiver;

  beforeAll(async () => {
    api = await startApi({ env: FAST_WEBHOOKS });
    worker = await startWorker(api.config);
    receiver = await new Receiver().start();
    receiver.respond = (request) => {
      if (request.path.startsWith('/gone')) return { status: 410 };
      if (request.path.startsWith('/failing')) return { status: 500, body: 'down' };
      return { status: 200, body: 'ok' };
    };
  });
  afterAll(async () => {
    await worker.close();
    await receiver.stop();
    await api.close();
  });

  async function endpointIn(company: TestCompany, url: string, events: string[]) {
    const { endpoint } = await createEndpoint(api, company, url, events);
    return { endpoint: { uuid: endpoint.uuid as string } };
  }

  /** A company with a healthy endpoint watching every event (its path and secret). */
  async function watched(): Promise<{ company: TestCompany; path: string; secret: string }> {
    const company = await createCompany(api, `ops-${Math.random().toString(36).slice(2)}`);
    const path = `/watch-${company.uuid}`;
    const { secret } = await createEndpoint(api, company, `${receiver.url}${path}`, EVERYTHING);
    return { company, path, secret };
  }

  /** The operational event `name` about `endpoint` the watcher received, verified with its secret. */
  async function received(path: string, secret: string, name: string, endpoint: string) {
    const request = await eventually(async () =>
      receiver.requests.find((r) => {
        if (r.path !== path) return false;
        const body = JSON.parse(r.body);
        return body.event === name && body.data.webhook_endpoint_uuid === endpoint;
      }),
    );
    return new Webhook(secret).verify(request.body, request.headers as Record<string, string>) as any;
  }

  it('an endpoint answering 410 produces endpoint.disabled (gone_410) at the company’s other endpoint', async () => {
    const { company, path, secret } = await watched();
    const { endpoint: gone } = await endpointIn(company, `${receiver.url}/gone`, ['warehouse.created']);
    await http(api.url, 'POST', W, { key: company.key, body: warehouse('Gone') });
    const event = await received(path, secret, 'endpoint.disabled', gone.uuid);
    expect(event).toMatchObject({
      event: 'endpoint.disabled',
      api_version: 'v1',
      id: expect.stringMatching(/^evt_[0-9a-z]{29}$/),
      data: {
        id: gone.uuid,
        webhook_endpoint_uuid: gone.uuid,
        url: `${receiver.url}/gone`,
        status: 'disabled',
        reason: 'gone_410',
        message: expect.stringMatching(/410/),
        additionalData: {},
      },
    });
    expect(new Date(event.created_at).toISOString()).toBe(event.created_at);
  });

  it('a delivery exhausting its retries produces delivery.exhausted; the failing endpoint subscribed to everything receives nothing about itself', async () => {
    const { company, path, secret } = await watched();
    const { endpoint: failing } = await endpointIn(company, `${receiver.url}/failing`, EVERYTHING);
    await http(api.url, 'POST', W, { key: company.key, body: warehouse('Exhausted') });
    const [source] = await sql(
      api,
      `SELECT event_id FROM webhook_events WHERE company_uuid = $1 AND name = 'warehouse.created'`,
      [company.uuid],
    );
    const event = await received(path, secret, 'delivery.exhausted', failing.uuid);
    expect(event.data).toMatchObject({
      webhook_endpoint_uuid: failing.uuid,
      event_id: source.event_id,
      event: 'warehouse.created',
      attempts: 3,
      last_response_status: 500,
      last_error: null,
      additionalData: {},
    });
    // The watcher got it (the positive signal); the failing endpoint, subscribed to everything, was routed
    // no delivery of it, by the rule, and its log holds only the warehouse event.
    const routing = await http(api.url, 'GET', `/int/v1/events/${event.id}/routing`, { key: company.key });
    const byEndpoint = Object.fromEntries(routing.body.routing.map((r: any) => [r.webhook_endpoint_uuid, r]));
    expect(byEndpoint[failing.uuid]).toMatchObject({ reason: 'about_itself', delivery: null });
    const logged = await sql(
      api,
      'SELECT DISTINCT event FROM webhook_request_logs WHERE webhook_endpoint_uuid = $1',
      [failing.uuid],
    );
    expect(logged).toEqual([{ event: 'warehouse.created' }]);
    expect(
      receiver.requests.filter((r) => r.path === '/failing').map((r) => JSON.parse(r.body).event),
    ).toEqual(['warehouse.created', 'warehouse.created', 'warehouse.created']);
  });

  it('the first success after failures produces endpoint.recovered', async () => {
    const { company, path, secret } = await watched();
    const flaky = `/flaky-${company.uuid}`;
    let calls = 0;
    const respond = receiver.respond;
    receiver.respond = (request, index) =>
      request.path === flaky ? (calls++ < 1 ? { status: 503 } : { status: 200 }) : respond(request, index);
    try {
      const { endpoint } = await endpointIn(company, `${receiver.url}${flaky}`, ['warehouse.created']);
      await http(api.url, 'POST', W, { key: company.key, body: warehouse('Flaky') });
      const event = await received(path, secret, 'endpoint.recovered', endpoint.uuid);
      expect(event.data).toMatchObject({
        webhook_endpoint_uuid: endpoint.uuid,
        status: 'enabled',
        reason: 'success',
      });
      expect(calls).toBe(2);
    } finally {
      receiver.respond = respond;
    }
  });

  it('disabling and enabling through the API produce endpoint.disabled (manual) and endpoint.enabled', async () => {
    const { company, path, secret } = await watched();
    const { endpoint } = await endpointIn(company, `${receiver.url}/other`, ['warehouse.created']);
    expect((await http(api.url, 'POST', `${E}/${endpoint.uuid}/disable`, { key: company.key })).status).toBe(
      200,
    );
    const disabled = await received(path, secret, 'endpoint.disabled', endpoint.uuid);
    expect(disabled.data).toMatchObject({ status: 'disabled', reason: 'manual' });
    expect((await http(api.url, 'POST', `${E}/${endpoint.uuid}/enable`, { key: company.key })).status).toBe(
      200,
    );
    const enabled = await received(path, secret, 'endpoint.enabled', endpoint.uuid);
    expect(enabled.data).toMatchObject({ status: 'enabled', reason: 'manual' });
  });

  it('the operational events are in the catalog with schemas and examples', async () => {
    const { company } = await watched();
    const catalog = await http(api.url, 'GET', '/int/v1/webhook-events', { key: company.key });
    const names = catalog.body.webhook_events.map((e: any) => e.name);
    for (const name of OPERATIONAL) {
      expect(names).toContain(name);
      const entry = catalog.body.webhook_events.find((e: any) => e.name === name);
      expect(entry.example.event).toBe(name);
      expect(entry.schema.properties.data.properties.webhook_endpoint_uuid).toEqual({ type: 'string' });
    }
  });

  it('delivery.exhausted matches its catalog schema, with last_response_status null when nothing answered and last_error null when something did', async () => {
    const { company, path, secret } = await watched();
    // A port nothing listens on: every attempt is a refused connection, with no status.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const { endpoint: unreachable } = await endpointIn(company, `http://127.0.0.1:${port}/hook`, [
      'warehouse.created',
    ]);
    const { endpoint: failing } = await endpointIn(company, `${receiver.url}/failing-schema`, [
      'warehouse.created',
    ]);
    await http(api.url, 'POST', W, { key: company.key, body: warehouse('Unreachable') });
    const noAnswer = await received(path, secret, 'delivery.exhausted', unreachable.uuid);
    const answered = await received(path, secret, 'delivery.exhausted', failing.uuid);
    expect(noAnswer.data).toMatchObject({ last_response_status: null, last_error: expect.any(String) });
    expect(answered.data).toMatchObject({ last_response_status: 500, last_error: null });

    const catalog = await http(api.url, 'GET', '/int/v1/webhook-events', { key: company.key });
    const entry = catalog.body.webhook_events.find((e: any) => e.name === 'delivery.exhausted');
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    const validate = ajv.compile(entry.schema);
    for (const event of [noAnswer, answered, entry.example])
      expect({ id: event.id, valid: validate(event), errors: validate.errors ?? null }).toEqual({
        id: event.id,
        valid: true,
        errors: null,
      });
    // The schema still says what the fields are when they are not null.
    expect(validate({ ...answered, data: { ...answered.data, last_response_status: 'five hundred' } })).toBe(
      false,
    );
  });
});
