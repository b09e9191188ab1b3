import { INestApplicationContext } from '@nestjs/common';
import { Extension, Params, ResourceRegistry, pageStatement, parseListQuery } from '@wharf/core';
import { InventoryExtension } from '@wharf/inventory';
import { Webhook } from 'standardwebhooks';
import { TestCompany, createCompany } from './support/accounts';
import { HttpResult, eventually, http } from './support/http';
import { Received, Receiver } from './support/receiver';
import { TestApi, startApi } from './support/test-app';
import { FAST_WEBHOOKS, sql, warehouse } from './support/webhooks';
import { startWorker } from './support/worker';

const E = '/int/v1/webhook-endpoints';
const L = '/int/v1/webhook-request-logs';
const W = '/inventory/int/v1/warehouses';
const SENDERS = ['203.0.113.10', '2001:db8::10'];

/** An extension that only declares custom events, as extensions do next to their resources. */
@Extension({
  name: 'yard',
  entities: [],
  events: [
    {
      name: 'trailer.arrived',
      description: 'A trailer checked in at the gate.',
      example: { id: '7d1f5c9e-3a2b-4c8d-9e0f-1a2b3c4d5e6f', dock: 'D4', additionalData: { gate: 'North' } },
    },
  ],
})
class YardEventsExtension {}

type Headers = Record<string, string>;

describe('webhook management API (the console’s backend)', () => {
  let api: TestApi;
  let worker: INestApplicationContext;
  let receiver: Receiver;
  let acme: TestCompany;

  beforeAll(async () => {
    api = await startApi({
      env: { ...FAST_WEBHOOKS, WEBHOOKS_SENDER_ADDRESSES: SENDERS.join(',') },
      extensions: [InventoryExtension, YardEventsExtension],
    });
    worker = await startWorker(api.config);
    receiver = await new Receiver().start();
    acme = await createCompany(api, 'Acme');
  });
  afterAll(async () => {
    await worker.close();
    await receiver.stop();
    await api.close();
  });
  beforeEach(() => {
    receiver.requests.length = 0;
    receiver.respond = () => ({ status: 200, body: 'ok' });
  });

  const call = (method: string, path: string, body?: unknown, company: TestCompany = acme) =>
    http(api.url, method, path, { key: company.key, body });

  async function newCompany(name: string): Promise<TestCompany> {
    return createCompany(api, `${name} ${Math.random().toString(36).slice(2, 8)}`);
  }

  async function createEndpoint(body: Record<string, unknown>, company: TestCompany = acme) {
    const res = await call('POST', E, { webhook_endpoint: body }, company);
    expect({ status: res.status, body: res.body }).toMatchObject({ status: 201 });
    return res.body.webhook_endpoint as { uuid: string; secret: string } & Record<string, any>;
  }

  async function createWarehouse(name: string, company: TestCompany = acme): Promise<string> {
    const res = await call('POST', W, warehouse(name), company);
    expect(res.status).toBe(201);
    return res.body.warehouse.uuid;
  }

  const received = (path: string, event?: string, uuid?: string): Received[] =>
    receiver.requests.filter((r) => {
      if (r.path !== path) return false;
      const body = JSON.parse(r.body);
      return (!event || body.event === event) && (!uuid || body.data?.uuid === uuid);
    });

  const errorAt = (res: HttpResult, pointer: string) =>
    res.body.errors.find((e: { source?: { pointer?: string } }) => e.source?.pointer === pointer);

  it('runs the console flow: create → list/filter → test → log → rotate → disable → enable', async () => {
    // Create: the secret is in this response only.
    const url = `${receiver.url}/flow`;
    const endpoint = await createEndpoint({
      url,
      description: 'Warehouses to the ERP',
      events: ['warehouse.created', 'warehouse.updated'],
    });
    expect(endpoint).toMatchObject({
      url,
      description: 'Warehouses to the ERP',
      events: ['warehouse.created', 'warehouse.updated'],
      status: 'enabled',
      company_uuid: acme.uuid,
      verified_at: null,
      disabled_at: null,
      disabled_reason: null,
      api_version: 'v1',
    });
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const secret = endpoint.secret;
    const other = await createEndpoint({ url: `${receiver.url}/other`, events: ['*'], status: 'disabled' });
    expect(other).toMatchObject({ status: 'disabled', disabled_reason: 'Disabled by a user.' });
    expect(other.disabled_at).toEqual(expect.any(String));

    const got = await call('GET', `${E}/${endpoint.uuid}`);
    expect(got.status).toBe(200);
    expect(got.body.webhook_endpoint).toMatchObject({ uuid: endpoint.uuid, url });
    const listed = await call('GET', E);
    for (const res of [got, listed]) {
      expect(res.text).not.toContain(secret);
      for (const field of ['"secret"', 'previous_secret', 'failing_since'])
        expect(res.text).not.toContain(field);
    }
    expect((await call('GET', `${E}/${endpoint.uuid}/secret`)).body).toEqual({ secret });
    // Writes of endpoints are not themselves webhook events.
    expect(await sql(api, `SELECT 1 FROM webhook_events WHERE name LIKE 'webhook%'`)).toHaveLength(0);

    // List and filter with the resource list grammar.
    const uuids = async (query: string) => {
      const res = await call('GET', `${E}${query}`);
      expect({ query, status: res.status }).toEqual({ query, status: 200 });
      return res.body.webhook_endpoints.map((e: { uuid: string }) => e.uuid);
    };
    expect(listed.body.meta).toMatchObject({ total: 2, current_page: 1 });
    expect(await uuids('')).toEqual([other.uuid, endpoint.uuid]);
    expect(await uuids('?sort=created_at')).toEqual([endpoint.uuid, other.uuid]);
    expect(await uuids('?status=enabled')).toEqual([endpoint.uuid]);
    expect(await uuids('?status=disabled')).toEqual([other.uuid]);
    expect(await uuids('?query=erp')).toEqual([endpoint.uuid]);
    expect(await uuids('?url_like=%2Fother')).toEqual([other.uuid]);
    expect(await uuids(`?uuid_in=${endpoint.uuid},${other.uuid}&limit=1&page=2&sort=created_at`)).toEqual([
      other.uuid,
    ]);
    expect((await call('GET', `${E}?secret=x`)).status).toBe(400);
    expect((await call('GET', `${E}?status=paused`)).body.errors[0].source).toEqual({ parameter: 'status' });

    // A test event to the local receiver; the log row shows what was sent and what came back.
    receiver.respond = () => ({
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: '{"ok":1}',
    });
    const tested = await call('POST', `${E}/${endpoint.uuid}/test`);
    expect(tested.status).toBe(200);
    const log = tested.body.webhook_request_log;
    const [delivered] = received('/flow');
    expect(delivered).toBeDefined();
    expect(log).toMatchObject({
      webhook_endpoint_uuid: endpoint.uuid,
      company_uuid: acme.uuid,
      event: 'order.updated',
      attempt: 1,
      test: true,
      url,
      status: 'successful',
      response_status: 200,
      response_body: '{"ok":1}',
      error: null,
    });
    expect(log.response_headers['content-type']).toBe('application/json');
    expect(log.duration_ms).toEqual(expect.any(Number));
    expect(log.request_body).toBe(delivered.body);
    expect(log.request_headers['webhook-signature']).toBe('[redacted]');
    expect(log.event_id).toBe(delivered.headers['webhook-id']);
    const payload = new Webhook(secret).verify(delivered.body, delivered.headers as Headers) as any;
    expect(payload).toMatchObject({ id: log.event_id, api_version: 'v1', event: 'order.updated' });
    expect(payload.data).toEqual({ id: expect.any(String), status: expect.any(String), additionalData: {} });
    expect((await call('GET', `${L}/${log.uuid}`)).body.webhook_request_log).toEqual(log);
    // null is "not given": the default event and its example data (it was a 500).
    const nulls = await call('POST', `${E}/${endpoint.uuid}/test`, { event: null, data: null });
    expect(nulls.status).toBe(200);
    expect(nulls.body.webhook_request_log).toMatchObject({ event: 'order.updated', status: 'successful' });

    // Rotate: the next delivery verifies with either secret.
    const rotated = await call('POST', `${E}/${endpoint.uuid}/rotate-secret`);
    expect(rotated.status).toBe(200);
    const newSecret = rotated.body.webhook_endpoint.secret;
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(secret);
    expect((await call('GET', `${E}/${endpoint.uuid}/secret`)).body).toEqual({ secret: newSecret });
    const first = await createWarehouse('Rotated');
    const [afterRotation] = await eventually(async () => {
      const found = received('/flow', 'warehouse.created', first);
      return found.length ? found : undefined;
    });
    const headers = afterRotation.headers as Headers;
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    for (const key of [secret, newSecret]) {
      expect(new Webhook(key).verify(afterRotation.body, headers)).toMatchObject({
        event: 'warehouse.created',
      });
    }

    // Disable: no deliveries; a test send still goes out (that is how users debug).
    const disabled = await call('POST', `${E}/${endpoint.uuid}/disable`);
    expect(disabled.body.webhook_endpoint).toMatchObject({
      status: 'disabled',
      disabled_reason: expect.any(String),
    });
    const second = await createWarehouse('While disabled');
    await eventually(async () => {
      const [row] = await sql(
        api,
        `SELECT NOT EXISTS (SELECT 1 FROM webhook_events_undispatched u WHERE u.id = e.id) AS dispatched
         FROM webhook_events e WHERE name = 'warehouse.created' AND payload->'data'->>'uuid' = $1`,
        [second],
      );
      return row?.dispatched === true || undefined;
    });
    // The relay creates an event's deliveries in the statement that takes it off the queue, and only a
    // delivery row is ever sent: with the event dispatched and no row for this endpoint, nothing will go.
    expect(received('/flow', 'warehouse.created', second)).toHaveLength(0);
    expect(
      await sql(
        api,
        "SELECT 1 FROM webhook_deliveries d JOIN webhook_events e USING (event_id) WHERE d.webhook_endpoint_uuid = $1 AND e.payload->'data'->>'uuid' = $2",
        [endpoint.uuid, second],
      ),
    ).toHaveLength(0);
    const whileDisabled = await call('POST', `${E}/${endpoint.uuid}/test`, { event: 'warehouse.created' });
    expect(whileDisabled.body.webhook_request_log).toMatchObject({ status: 'successful', test: true });

    // Enable: deliveries resume.
    const enabled = await call('POST', `${E}/${endpoint.uuid}/enable`);
    expect(enabled.body.webhook_endpoint).toMatchObject({
      status: 'enabled',
      disabled_at: null,
      disabled_reason: null,
    });
    const third = await createWarehouse('Enabled again');
    const [resumed] = await eventually(async () => {
      const found = received('/flow', 'warehouse.created', third);
      return found.length ? found : undefined;
    });
    expect(new Webhook(newSecret).verify(resumed.body, resumed.headers as Headers)).toBeTruthy();

    // Update and delete are the resource routes; delete returns the last state and stops everything.
    const updated = await call('PUT', `${E}/${endpoint.uuid}`, {
      webhook_endpoint: { description: 'ERP v2' },
    });
    expect(updated.body.webhook_endpoint).toMatchObject({ description: 'ERP v2', url });
    const removed = await call('DELETE', `${E}/${other.uuid}`);
    expect(removed.status).toBe(200);
    expect(removed.body.webhook_endpoint.uuid).toBe(other.uuid);
    expect((await call('GET', `${E}/${other.uuid}`)).status).toBe(404);
  });

  it('validates endpoint writes: URL policy, events from the catalog, fields (422 naming the problem)', async () => {
    const co = await newCompany('Validation');
    const create = (body: Record<string, unknown>) => call('POST', E, { webhook_endpoint: body }, co);

    const scheme = await create({ url: 'ftp://hooks.example.com/x', events: ['*'] });
    expect(scheme.status).toBe(422);
    expect(errorAt(scheme, '/data/attributes/url').detail).toMatch(
      /not allowed: only http:\/\/ and https:\/\//,
    );
    const unparsable = await create({ url: 'not a url', events: ['*'] });
    expect(errorAt(unparsable, '/data/attributes/url').detail).toMatch(/not a valid URL/);
    const credentials = await create({ url: 'https://user:pw@hooks.example.com/x' });
    expect(errorAt(credentials, '/data/attributes/url').detail).toMatch(/credentials/);

    const unknown = await create({
      url: `${receiver.url}/v`,
      events: ['warehouse.created', 'warehouse.exploded'],
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors).toHaveLength(1);
    expect(errorAt(unknown, '/data/attributes/events/1').detail).toContain('"warehouse.exploded"');
    const empty = await create({ url: `${receiver.url}/v`, events: [] });
    expect(empty.status).toBe(422);
    expect(errorAt(empty, '/data/attributes/events')).toBeDefined();
    const notStrings = await create({ url: `${receiver.url}/v`, events: [1] });
    expect(notStrings.status).toBe(422);
    const extra = await create({ url: `${receiver.url}/v`, colour: 'blue' });
    expect(errorAt(extra, '/data/attributes/colour').detail).toMatch(/not a field/);
    const status = await create({ url: `${receiver.url}/v`, status: 'paused' });
    expect(errorAt(status, '/data/attributes/status')).toBeDefined();
    const noUrl = await create({ events: ['*'] });
    expect(errorAt(noUrl, '/data/attributes/url')).toBeDefined();
    const notJson = await http(api.url, 'POST', E, {
      key: co.key,
      raw: '{"url":',
      headers: { 'content-type': 'application/json' },
    });
    expect(notJson.status).toBe(400);
    expect(await sql(api, 'SELECT 1 FROM webhook_endpoints WHERE company_uuid = $1', [co.uuid])).toHaveLength(
      0,
    );

    // Accepted: "*" by default, a custom event declared in an extension manifest, the flat body.
    const all = await create({ url: `${receiver.url}/v` });
    expect(all.body.webhook_endpoint.events).toEqual(['*']);
    const custom = await call(
      'POST',
      E,
      { url: `${receiver.url}/v`, events: ['trailer.arrived', 'trailer.arrived'] },
      co,
    );
    expect(custom.status).toBe(201);
    expect(custom.body.webhook_endpoint.events).toEqual(['trailer.arrived']);

    // Updates obey the same rules; echoing the record back (secret included) is harmless.
    const uuid = custom.body.webhook_endpoint.uuid;
    const badUpdate = await call('PUT', `${E}/${uuid}`, { webhook_endpoint: { events: ['nope.nope'] } }, co);
    expect(errorAt(badUpdate, '/data/attributes/events/0').detail).toContain('"nope.nope"');
    const badUrl = await call('PATCH', `${E}/${uuid}`, { url: 'gopher://x' }, co);
    expect(errorAt(badUrl, '/data/attributes/url')).toBeDefined();
    const echoed = await call(
      'PUT',
      `${E}/${uuid}`,
      { webhook_endpoint: { ...custom.body.webhook_endpoint, description: 'echo' } },
      co,
    );
    expect(echoed.status).toBe(200);
    expect(echoed.body.webhook_endpoint).toMatchObject({ description: 'echo', events: ['trailer.arrived'] });
    expect((await call('GET', `${E}/${uuid}/secret`, undefined, co)).body.secret).toBe(
      custom.body.webhook_endpoint.secret,
    );
  });

  it('runs the ownership challenge: an echo verifies, another 200 body does not (422, verified_at stays null)', async () => {
    const co = await newCompany('Owner');
    receiver.respond = (request) => {
      const { challenge } = JSON.parse(request.body);
      switch (request.path) {
        case '/echo':
          return { status: 200, body: challenge };
        case '/echo-json':
          return {
            status: 200,
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ challenge }),
          };
        case '/error':
          return { status: 500, body: challenge };
        default:
          return { status: 200, body: '{"received":true}' };
      }
    };
    const verify = async (path: string) => {
      const endpoint = await createEndpoint(
        { url: path.startsWith('http') ? path : `${receiver.url}${path}` },
        co,
      );
      const res = await call('POST', `${E}/${endpoint.uuid}/verify`, undefined, co);
      const after = (await call('GET', `${E}/${endpoint.uuid}`, undefined, co)).body.webhook_endpoint;
      return { endpoint, res, after };
    };

    for (const path of ['/echo', '/echo-json']) {
      const { endpoint, res, after } = await verify(path);
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
      expect(res.body.webhook_endpoint.verified_at).toEqual(expect.any(String));
      expect(after.verified_at).toBe(res.body.webhook_endpoint.verified_at);
      // The challenge is a signed POST like any delivery.
      const [challenge] = receiver.requests.filter((r) => r.path === path);
      const body = new Webhook(endpoint.secret).verify(challenge.body, challenge.headers as Headers) as any;
      expect(body).toEqual({
        type: 'webhook.verification',
        challenge: expect.stringMatching(/^[\w-]{16,}$/),
      });
    }

    const wrong = await verify('/wrong');
    expect(wrong.res.status).toBe(422);
    expect(wrong.res.body.errors[0].detail).toMatch(
      /answered 200 with the body "\{\\"received\\":true\}" instead of the challenge/,
    );
    expect(wrong.res.body.errors[0].meta).toMatchObject({
      response_status: 200,
      response_body: '{"received":true}',
    });
    expect(wrong.after.verified_at).toBeNull();

    const failing = await verify('/error');
    expect(failing.res.status).toBe(422);
    expect(failing.res.body.errors[0].detail).toMatch(/answered 500/);
    expect(failing.after.verified_at).toBeNull();

    const unreachable = await verify('http://127.0.0.1:9/nobody');
    expect(unreachable.res.status).toBe(422);
    expect(unreachable.res.body.errors[0].detail).toMatch(/could not be reached \(refused\)/);
    expect(unreachable.after.verified_at).toBeNull();

    // A new URL has to be verified again.
    const verified = await verify('/echo');
    const moved = await call(
      'PUT',
      `${E}/${verified.endpoint.uuid}`,
      { url: `${receiver.url}/echo-json` },
      co,
    );
    expect(moved.body.webhook_endpoint.verified_at).toBeNull();
  });

  it('recovers: 10 events that failed to exhaustion while the receiver was down arrive with their original webhook-ids', async () => {
    const co = await newCompany('Recover');
    const flaky = await new Receiver().start();
    const port = Number(new URL(flaky.url).port);
    const endpoint = await createEndpoint({ url: `${flaky.url}/recover`, events: ['warehouse.created'] }, co);
    await flaky.stop();
    try {
      const since = new Date(Date.now() - 1000).toISOString();
      for (let i = 0; i < 10; i++) await createWarehouse(`Down ${i}`, co);
      const failed = await eventually(async () => {
        const rows = await sql(
          api,
          `SELECT d.event_id, d.attempts FROM webhook_deliveries d WHERE d.webhook_endpoint_uuid = $1 AND d.status = 'failed'`,
          [endpoint.uuid],
        );
        return rows.length === 10 ? rows : undefined;
      }, 20_000);
      expect(failed.every((row) => row.attempts === 3)).toBe(true);
      const logs = await call('GET', `${L}?webhook_endpoint_uuid=${endpoint.uuid}&limit=100`, undefined, co);
      expect(logs.body.meta.total).toBe(30);
      expect(
        logs.body.webhook_request_logs.every((l: any) => l.status === 'failed' && l.error === 'refused'),
      ).toBe(true);
      const originalIds = new Set(failed.map((row) => row.event_id));
      expect(originalIds.size).toBe(10);

      // Outside the window: nothing to recover.
      const before = await call(
        'POST',
        `${E}/${endpoint.uuid}/recover`,
        { since: '2020-01-01T00:00:00Z', until: since },
        co,
      );
      expect(before.body.meta).toEqual({ queued: 0 });

      await flaky.start(port);
      const recovered = await call('POST', `${E}/${endpoint.uuid}/recover`, { since }, co);
      expect(recovered.status).toBe(200);
      expect(recovered.body.meta).toEqual({ queued: 10 });
      expect(new Set(recovered.body.webhook_deliveries.map((d: any) => d.event_id))).toEqual(originalIds);
      expect(recovered.body.webhook_deliveries[0]).toMatchObject({
        webhook_endpoint_uuid: endpoint.uuid,
        event: 'warehouse.created',
        status: 'pending',
        attempts: 3,
      });

      await eventually(async () => flaky.requests.length >= 10, 15_000);
      const ids = flaky.requests.map((r) => r.headers['webhook-id']);
      expect(new Set(ids)).toEqual(originalIds);
      expect(ids).toHaveLength(10);
      for (const request of flaky.requests) {
        const payload = new Webhook(endpoint.secret).verify(request.body, request.headers as Headers) as any;
        expect(payload.id).toBe(request.headers['webhook-id']);
      }
      await eventually(async () => {
        const rows = await sql(
          api,
          `SELECT status FROM webhook_deliveries WHERE webhook_endpoint_uuid = $1`,
          [endpoint.uuid],
        );
        return rows.every((row) => row.status === 'successful');
      });
      // Nothing failed any more.
      const again = await call('POST', `${E}/${endpoint.uuid}/recover`, { since }, co);
      expect(again.body).toEqual({ webhook_deliveries: [], meta: { queued: 0 } });
    } finally {
      await flaky.stop();
    }

    // Bad windows are 422 naming the field.
    const noSince = await call('POST', `${E}/${endpoint.uuid}/recover`, {}, co);
    expect(noSince.status).toBe(422);
    expect(noSince.body.errors[0].source).toEqual({ pointer: '/data/attributes/since' });
    const nullSince = await call('POST', `${E}/${endpoint.uuid}/recover`, { since: null }, co);
    expect(nullSince.status).toBe(422);
    expect(nullSince.body.errors[0].source).toEqual({ pointer: '/data/attributes/since' });
    // until: null is no upper bound (it read as 1970, before since: a 422 naming until).
    const open = await call(
      'POST',
      `${E}/${endpoint.uuid}/recover`,
      { since: '2020-01-01T00:00:00Z', until: null },
      co,
    );
    expect(open.status).toBe(200);
    const reversed = await call(
      'POST',
      `${E}/${endpoint.uuid}/recover`,
      { since: '2026-01-02T00:00:00Z', until: '2026-01-01T00:00:00Z' },
      co,
    );
    expect(reversed.body.errors[0].source).toEqual({ pointer: '/data/attributes/until' });
    expect((await call('POST', `${E}/${endpoint.uuid}/recover`, { since: 'yesterday' }, co)).status).toBe(
      422,
    );
  });

  describe('request logs', () => {
    let co: TestCompany;
    let e1: string;
    let e2: string;
    let logs: any[];
    let createdEventId: string;

    const total = async (query: string) => {
      const res = await call('GET', `${L}?${query}`, undefined, co);
      expect({ query, status: res.status }).toEqual({ query, status: 200 });
      return res.body.meta.total as number;
    };

    beforeAll(async () => {
      co = await newCompany('Logs');
      receiver.respond = (request) =>
        request.path === '/f1' && JSON.parse(request.body).event === 'warehouse.updated'
          ? { status: 500, body: 'nope' }
          : { status: 200, body: 'ok' };
      e1 = (await createEndpoint({ url: `${receiver.url}/f1` }, co)).uuid;
      e2 = (await createEndpoint({ url: `${receiver.url}/f2`, events: ['warehouse.created'] }, co)).uuid;
      expect((await call('POST', `${E}/${e1}/test`, { event: 'trailer.arrived' }, co)).status).toBe(200);
      const uuid = await createWarehouse('Logged', co);
      await eventually(async () => (await total('event=warehouse.created')) === 2);
      await call('PUT', `${W}/${uuid}`, { warehouse: { name: 'Logged twice' } }, co);
      await eventually(async () => (await total('event=warehouse.updated')) === 3);
      logs = (await call('GET', `${L}?limit=100&sort=sent_at`, undefined, co)).body.webhook_request_logs;
      createdEventId = logs.find((l) => l.event === 'warehouse.created').event_id;
    });

    it('are searched through one key per endpoint, event and url, read from its search index', async () => {
      const keys = await sql(
        api,
        `SELECT webhook_endpoint_uuid AS endpoint, event, url FROM webhook_request_log_search_keys
         WHERE company_uuid = $1 ORDER BY url, event`,
        [co.uuid],
      );
      const distinct = new Map(
        logs.map((l) => [
          `${l.url} ${l.event}`,
          { endpoint: l.webhook_endpoint_uuid, event: l.event, url: l.url },
        ]),
      );
      expect(keys).toEqual(
        [...distinct.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, key]) => key),
      );
      expect(keys).toHaveLength(4); // 6 logs: the test send and the created event at /f1, 3 updates at /f1, 1 at /f2

      const def = api.app.get(ResourceRegistry).get('webhook-request-log');
      const params = new Params();
      const parsed = parseListQuery({ query: 'f2' }, def, params);
      const text = pageStatement(def, co.uuid, parsed, params, parsed.limit + 1, undefined, parsed.search);
      const [plan] = await sql(api, `EXPLAIN (FORMAT JSON) ${text}`, params.values);
      expect(JSON.stringify(plan['QUERY PLAN'])).toContain(
        '"Index Name":"webhook_request_log_search_keys_event_url_search_idx"',
      );
    });

    it('filters by endpoint, event, event_id, status, test and sent_at range', async () => {
      expect(logs).toHaveLength(6);
      expect(await total('')).toBe(6);
      expect(await total(`webhook_endpoint_uuid=${e1}`)).toBe(5);
      expect(await total(`webhook_endpoint_uuid=${e2}`)).toBe(1);
      expect(await total('event=warehouse.updated')).toBe(3);
      expect(await total('event=trailer.arrived')).toBe(1);
      expect(await total('event_like=warehouse')).toBe(5);
      expect(await total(`event_id=${createdEventId}`)).toBe(2);
      // An event id is matched exactly or by event_id_like; `query` searches the event and the url only.
      expect(await total(`event_id_like=${createdEventId.slice(-12)}`)).toBe(2);
      expect(await total(`query=${createdEventId.slice(-12)}`)).toBe(0);
      expect(await total('query=/F2')).toBe(1);
      expect(await total('query=trailer.arr')).toBe(1);
      expect(await total('status=failed')).toBe(3);
      expect(await total('status=successful')).toBe(3);
      expect(await total('test=true')).toBe(1);
      expect(await total('test=false')).toBe(5);
      const updated = logs.filter((l) => l.event === 'warehouse.updated');
      expect(updated.map((l) => [l.attempt, l.status, l.response_status, l.response_body])).toEqual([
        [1, 'failed', 500, 'nope'],
        [2, 'failed', 500, 'nope'],
        [3, 'failed', 500, 'nope'],
      ]);
      const created = logs.filter((l) => l.event === 'warehouse.created');
      const firstUpdate = updated[0].sent_at;
      const lastCreated = created[created.length - 1].sent_at;
      expect(await total(`sent_at_gte=${firstUpdate}`)).toBe(3);
      expect(await total(`sent_at_lte=${lastCreated}`)).toBe(3);
      expect(await total(`sent_at_gte=${created[0].sent_at}&sent_at_lte=${lastCreated}`)).toBe(2);
      expect(await total(`sent_at_gt=${lastCreated}&sent_at_lt=${firstUpdate}`)).toBe(0);
      expect(
        await total(`webhook_endpoint_uuid=${e1}&status=failed&event=warehouse.updated&test=false`),
      ).toBe(3);

      for (const [query, parameter] of [
        ['status=sent', 'status'],
        ['test=maybe', 'test'],
        ['sent_at_gte=yesterday', 'sent_at_gte'],
        ['webhook_endpoint_uuid=nope', 'webhook_endpoint_uuid'],
        ['webhook_delivery_uuid=00000000-0000-4000-8000-000000000000', 'webhook_delivery_uuid'],
        ['request_headers=x', 'request_headers'],
      ]) {
        const res = await call('GET', `${L}?${query}`, undefined, co);
        expect({ query, status: res.status, source: res.body.errors[0].source }).toEqual({
          query,
          status: 400,
          source: { parameter },
        });
      }
      // Read-only: no create, update or delete routes (405, and Allow says what there is).
      const post = await call('POST', L, { event: 'x' }, co);
      expect({ status: post.status, allow: post.headers.get('allow') }).toEqual({
        status: 405,
        allow: 'GET, HEAD, OPTIONS',
      });
      expect((await call('PUT', `${L}/${logs[0].uuid}`, { event: 'x' }, co)).status).toBe(405);
      expect((await call('DELETE', `${L}/${logs[0].uuid}`, undefined, co)).status).toBe(405);
    });

    it('sort by time or status only: each sort index is a B-tree entry on every delivery attempt', async () => {
      const order = async (sort: string) => {
        const res = await call('GET', `${L}?limit=100&sort=${sort}`, undefined, co);
        expect({ sort, status: res.status }).toEqual({ sort, status: 200 });
        return (res.body.webhook_request_logs as { status: string }[]).map((l) => l.status);
      };
      expect(await order('status')).toEqual([...Array(3).fill('failed'), ...Array(3).fill('successful')]);
      expect(await order('-status')).toEqual([...Array(3).fill('successful'), ...Array(3).fill('failed')]);
      for (const sort of ['event', '-response_status']) {
        const res = await call('GET', `${L}?sort=${sort}`, undefined, co);
        expect({ sort, status: res.status, source: res.body.errors[0].source }).toEqual({
          sort,
          status: 400,
          source: { parameter: 'sort' },
        });
        expect(res.body.errors[0].detail).toBe(
          `Cannot sort by "${sort.replace('-', '')}": sort by created_at, sent_at, status.`,
        );
      }
      // The columns no longer sortable still filter.
      expect(await total('event=warehouse.updated&response_status=500')).toBe(3);
      expect(await total('response_status=200')).toBe(3);
      // What a recorded attempt writes besides its row: the indexes of the request log, one entry each.
      const indexes = await sql(
        api,
        `SELECT indexname FROM pg_indexes WHERE tablename = 'webhook_request_logs' ORDER BY indexname`,
      );
      expect(indexes.map((i: { indexname: string }) => i.indexname)).toEqual([
        'webhook_request_logs_created_at_sort_idx',
        'webhook_request_logs_event_id_idx',
        'webhook_request_logs_pkey',
        'webhook_request_logs_sent_at_sort_idx',
        'webhook_request_logs_status_sort_idx',
        'webhook_request_logs_uuid_key',
        'webhook_request_logs_webhook_endpoint__ee2d66a5_search_keys_idx',
      ]);
    });

    it('resends a logged delivery with the same webhook-id; a test send cannot be resent', async () => {
      const failed = logs.find((l) => l.event === 'warehouse.updated' && l.attempt === 3);
      receiver.respond = () => ({ status: 200, body: 'fixed' });
      const res = await call('POST', `${L}/${failed.uuid}/resend`, undefined, co);
      expect(res.status).toBe(200);
      expect(res.body.meta).toEqual({ queued: 1 });
      expect(res.body.webhook_deliveries[0]).toMatchObject({
        event_id: failed.event_id,
        webhook_endpoint_uuid: e1,
      });
      const [again] = await eventually(async () => {
        const found = receiver.requests.filter((r) => r.headers['webhook-id'] === failed.event_id);
        return found.length ? found : undefined;
      });
      expect(again.body).toBe(failed.request_body);
      const log = await eventually(async () => {
        const list = await call('GET', `${L}?event_id=${failed.event_id}&status=successful`, undefined, co);
        return list.body.webhook_request_logs[0];
      });
      expect(log).toMatchObject({ attempt: 4, response_body: 'fixed', test: false });

      // Delivered now (deleted by the statement that logged attempt 4), so no longer stored as a delivery: a
      // resend makes it again and goes on counting.
      expect(
        await sql(api, 'SELECT count(*)::int AS n FROM webhook_deliveries WHERE event_id = $1', [
          failed.event_id,
        ]),
      ).toEqual([{ n: 0 }]);
      const again2 = await call('POST', `${L}/${log.uuid}/resend`, undefined, co);
      expect(again2.status).toBe(200);
      expect(again2.body.webhook_deliveries[0]).toMatchObject({
        event_id: failed.event_id,
        webhook_endpoint_uuid: e1,
        event: 'warehouse.updated',
        status: 'pending',
        attempts: 4,
      });
      const fifth = await eventually(async () => {
        const list = await call('GET', `${L}?event_id=${failed.event_id}&status=successful`, undefined, co);
        return list.body.webhook_request_logs.find((l: { attempt: number }) => l.attempt === 5);
      });
      expect(fifth).toMatchObject({ response_body: 'fixed', request_body: failed.request_body });
      expect(receiver.requests.filter((r) => r.headers['webhook-id'] === failed.event_id)).toHaveLength(2);

      const test = logs.find((l) => l.test);
      const refused = await call('POST', `${L}/${test.uuid}/resend`, undefined, co);
      expect(refused.status).toBe(422);
      expect(refused.body.errors[0].detail).toMatch(/test send/);
    });
  });

  it('test sends: a catalog event with its example or given data; unknown events and bad bodies are 422', async () => {
    const co = await newCompany('Tests');
    const endpoint = await createEndpoint({ url: `${receiver.url}/t`, events: ['warehouse.created'] }, co);
    const custom = await call('POST', `${E}/${endpoint.uuid}/test`, { event: 'trailer.arrived' }, co);
    expect(custom.status).toBe(200);
    expect(JSON.parse(custom.body.webhook_request_log.request_body)).toMatchObject({
      event: 'trailer.arrived',
      data: { id: '7d1f5c9e-3a2b-4c8d-9e0f-1a2b3c4d5e6f', dock: 'D4', additionalData: { gate: 'North' } },
    });
    const given = await call(
      'POST',
      `${E}/${endpoint.uuid}/test`,
      { event: 'warehouse.updated', data: { id: 'w1', name: 'X' } },
      co,
    );
    expect(JSON.parse(given.body.webhook_request_log.request_body).data).toEqual({
      id: 'w1',
      name: 'X',
      additionalData: {},
    });

    for (const body of [
      { event: 'order.teleported' },
      { event: '*' },
      { data: 'text' },
      { colour: 'red' },
      [1],
    ]) {
      const res = await call('POST', `${E}/${endpoint.uuid}/test`, body, co);
      expect({ body, status: res.status }).toEqual({ body, status: 422 });
    }
    const unreachable = await createEndpoint({ url: 'http://127.0.0.1:9/t' }, co);
    const failed = await call('POST', `${E}/${unreachable.uuid}/test`, undefined, co);
    expect(failed.body.webhook_request_log).toMatchObject({
      status: 'failed',
      error: 'refused',
      response_status: null,
    });
  });

  it('keeps another company’s endpoints and logs invisible (404) and untouchable', async () => {
    const owner = await newCompany('Owner A');
    const intruder = await newCompany('Intruder B');
    const endpoint = await createEndpoint(
      { url: `${receiver.url}/private`, description: 'secret stuff' },
      owner,
    );
    const log = (await call('POST', `${E}/${endpoint.uuid}/test`, undefined, owner)).body.webhook_request_log;
    const mine = await createEndpoint({ url: `${receiver.url}/mine` }, intruder);

    const attempts: [string, string, unknown?][] = [
      ['GET', `${E}/${endpoint.uuid}`],
      ['PUT', `${E}/${endpoint.uuid}`, { description: 'mine now' }],
      ['PATCH', `${E}/${endpoint.uuid}`, { description: 'mine now' }],
      ['DELETE', `${E}/${endpoint.uuid}`],
      ['GET', `${E}/${endpoint.uuid}/secret`],
      ['POST', `${E}/${endpoint.uuid}/rotate-secret`],
      ['POST', `${E}/${endpoint.uuid}/enable`],
      ['POST', `${E}/${endpoint.uuid}/disable`],
      ['POST', `${E}/${endpoint.uuid}/test`],
      ['POST', `${E}/${endpoint.uuid}/verify`],
      ['POST', `${E}/${endpoint.uuid}/recover`, { since: '2020-01-01T00:00:00Z' }],
      ['GET', `${L}/${log.uuid}`],
      ['POST', `${L}/${log.uuid}/resend`],
    ];
    receiver.requests.length = 0;
    for (const [method, path, body] of attempts) {
      const res = await call(method, path, body, intruder);
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 404 });
      expect(res.text).not.toContain(endpoint.secret);
      expect(res.text).not.toContain('secret stuff');
    }
    expect(receiver.requests).toHaveLength(0);

    const endpoints = await call('GET', `${E}?limit=100`, undefined, intruder);
    expect(endpoints.body.webhook_endpoints.map((e: any) => e.uuid)).toEqual([mine.uuid]);
    const logs = await call('GET', `${L}?limit=100`, undefined, intruder);
    expect(logs.body.webhook_request_logs).toEqual([]);
    const filtered = await call('GET', `${L}?webhook_endpoint_uuid=${endpoint.uuid}`, undefined, intruder);
    expect(filtered.body.meta.total).toBe(0);
    // A's endpoint is untouched: same secret, still enabled.
    const [row] = await sql(
      api,
      'SELECT status, description, updated_at FROM webhook_endpoints WHERE uuid = $1',
      [endpoint.uuid],
    );
    expect(row).toMatchObject({ status: 'enabled', description: 'secret stuff' });
    expect((await call('GET', `${E}/${endpoint.uuid}/secret`, undefined, owner)).body.secret).toBe(
      endpoint.secret,
    );
    // Without a key, nothing at all.
    expect((await http(api.url, 'GET', E)).status).toBe(401);
    expect((await http(api.url, 'GET', '/int/v1/webhook-events')).status).toBe(401);
  });

  it('lists the event catalog (every resource’s created/updated/deleted and declared custom events) and the sender addresses', async () => {
    const res = await call('GET', '/int/v1/webhook-events');
    expect(res.status).toBe(200);
    const events: any[] = res.body.webhook_events;
    const names = events.map((e) => e.name);
    const resources = api.app
      .get(ResourceRegistry)
      .all()
      .filter((def) => def.events !== false);
    expect(resources.map((def) => def.name)).toEqual(
      expect.arrayContaining(['location', 'warehouse', 'warehouse-dock']),
    );
    for (const def of resources) {
      for (const action of ['created', 'updated', 'deleted']) {
        const event = events.find((e) => e.name === `${def.keys.singular}.${action}`);
        expect({ name: `${def.keys.singular}.${action}`, found: !!event }).toEqual({
          name: `${def.keys.singular}.${action}`,
          found: true,
        });
        expect(event.resource).toBe(def.name);
      }
    }
    expect(names.filter((name) => name.startsWith('webhook'))).toEqual([]);
    expect(names).toEqual([...names].sort());
    expect(new Set(names).size).toBe(names.length);
    for (const event of events) {
      expect(event.description).toEqual(expect.any(String));
      expect(event.example).toMatchObject({
        id: expect.stringMatching(/^evt_/),
        api_version: 'v1',
        event: event.name,
        created_at: expect.any(String),
        data: { id: expect.anything(), additionalData: expect.any(Object) },
      });
    }
    const updated = events.find((e) => e.name === 'warehouse.updated');
    expect(updated.example.data).toMatchObject({
      name: expect.any(String),
      location: expect.any(Object),
      sections: expect.any(Array),
    });
    expect(updated.example.data.additionalData.changes.name).toHaveLength(2);
    expect(events.find((e) => e.name === 'trailer.arrived')).toEqual({
      name: 'trailer.arrived',
      resource: 'trailer',
      description: 'A trailer checked in at the gate.',
      example: expect.objectContaining({
        event: 'trailer.arrived',
        data: { id: '7d1f5c9e-3a2b-4c8d-9e0f-1a2b3c4d5e6f', dock: 'D4', additionalData: { gate: 'North' } },
      }),
      // No resource is called trailer: the schema follows the declared example.
      schema: expect.objectContaining({
        properties: expect.objectContaining({
          event: { const: 'trailer.arrived' },
          data: expect.objectContaining({
            properties: {
              id: { type: 'string' },
              dock: { type: 'string' },
              additionalData: {
                type: 'object',
                properties: { gate: { type: 'string' } },
                required: ['gate'],
              },
            },
            required: ['id', 'dock', 'additionalData'],
          }),
        }),
      }),
      // About no record: always sent in full, so it has no thin form.
      thin: null,
    });
    // A record's event also shows the thin form a `payload: "thin"` endpoint receives, with its schema.
    expect(updated.thin.example).toEqual({
      ...updated.thin.example,
      event: 'warehouse.updated',
      data: {
        id: updated.example.data.id,
        object: 'warehouse',
        href: `${api.config.publicUrl}/inventory/int/v1/warehouses/${updated.example.data.id}`,
        additionalData: { changes: Object.keys(updated.example.data.additionalData.changes) },
      },
    });
    expect(updated.thin.schema.properties.data.required).toEqual(['id', 'object', 'href', 'additionalData']);

    const senders = await call('GET', '/int/v1/webhook-sender-addresses');
    expect(senders.status).toBe(200);
    expect(senders.body).toEqual({ webhook_sender_addresses: SENDERS });
  });
});
