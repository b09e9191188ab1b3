import { readFileSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INestApplicationContext } from '@nestjs/common';
import {
  DESTINATION_TYPE_NAMES,
  EndpointDestination,
  WEBHOOK_EVENT_NAMES,
  WarehouseCreatedEvent,
  WebhookVerificationError,
  createWharfClient,
  isThinEvent,
  verifyThinWebhook,
  verifyWebhook,
} from '@wharf/client';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { createCompany, TestCompany } from './support/accounts';
import { eventually, http } from './support/http';
import { CLI, ROOT, assertBuilt, runNode } from './support/processes';
import { Receiver } from './support/receiver';
import { startApi, TestApi } from './support/test-app';
import { FAST_WEBHOOKS, createEndpoint } from './support/webhooks';
import { startWorker } from './support/worker';

const GENERATED = join(ROOT, 'clients', 'typescript', 'src', 'generated');

describe('@wharf/client (clients/typescript)', () => {
  let api: TestApi;
  let worker: INestApplicationContext;
  let receiver: Receiver;
  let acme: TestCompany;

  beforeAll(async () => {
    api = await startApi({ env: FAST_WEBHOOKS });
    // Links in thin events are built by the worker, with the address the api is reached at.
    worker = await startWorker({ ...api.config, publicUrl: api.url });
    receiver = await new Receiver().start();
    acme = await createCompany(api, 'Client Co');
  });
  afterAll(async () => {
    await worker?.close();
    await receiver?.stop();
    await api?.close();
  });

  it('is committed as `npm run client:generate` writes it from the api (regenerate when this fails)', async () => {
    assertBuilt();
    const dir = await mkdtemp(join(tmpdir(), 'wharf-client-'));
    try {
      const run = runNode(CLI, ['client:typescript', dir], {
        DATABASE_URL: api.config.databaseUrl,
        REDIS_URL: api.config.redisUrl,
        QUEUE_PREFIX: api.config.queuePrefix,
        NODE_ENV: 'test',
      });
      expect({ code: (await run.exited).code, output: run.output() }).toEqual({
        code: 0,
        output: expect.stringContaining('Wrote 3 file(s)'),
      });
      const files = readdirSync(dir).sort();
      expect(files).toEqual(readdirSync(GENERATED).sort());
      for (const file of files) {
        const fresh = readFileSync(join(dir, file), 'utf8');
        const committed = readFileSync(join(GENERATED, file), 'utf8');
        expect({ file, stale: fresh !== committed }).toEqual({ file, stale: false });
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('does CRUD and the list grammar against the real api, typed', async () => {
    const client = createWharfClient({ baseUrl: api.url, apiKey: acme.key });
    const W = '/inventory/int/v1/warehouses';
    const names = ['Alpha dock', 'Beta dock', 'Gamma yard'];
    for (const name of names) {
      const { data, response } = await client.POST(W, {
        body: {
          warehouse: { name, address: '1 Quay', city: 'Rotterdam', state: 'ZH', zip: '3011', capacity: 5 },
        },
      });
      expect(response.status).toBe(201);
      expect(data!.warehouse.name).toBe(name);
    }

    const listed = await client.GET(W, {
      params: { query: { limit: 1, sort: 'name:desc', query: 'dock', filters: { capacity_gte: '5' } } },
    });
    expect(listed.response.status).toBe(200);
    expect(listed.data!.warehouses.map((w) => w.name)).toEqual(['Beta dock']);
    expect(listed.data!.meta).toMatchObject({ total: 2, per_page: 1, last_page: 2 });

    const [beta] = listed.data!.warehouses;
    expect(beta.id).toBe(beta.uuid);
    const one = await client.GET(`${W}/{uuid}`, { params: { path: { uuid: beta.uuid } } });
    expect(one.data!.warehouse).toEqual(beta);

    const updated = await client.PUT(`${W}/{uuid}`, {
      params: { path: { uuid: beta.uuid } },
      body: { warehouse: { capacity: 9, sections: [{ name: 'North' }] } },
    });
    expect(updated.data!.warehouse).toMatchObject({ capacity: 9, sections: [{ name: 'North' }] });

    const invalid = await client.POST(W, { body: { name: '' } as never });
    expect(invalid.response.status).toBe(422);
    expect(invalid.error!.errors[0].source?.pointer).toMatch(/^\/data\/attributes\//);

    const removed = await client.DELETE(`${W}/{uuid}`, { params: { path: { uuid: beta.uuid } } });
    expect(removed.response.status).toBe(200);
    const gone = await client.GET(`${W}/{uuid}`, { params: { path: { uuid: beta.uuid } } });
    expect(gone.response.status).toBe(404);
  });

  it('sets an Idempotency-Key per call, and iterates over every page of events', async () => {
    const company = await createCompany(api, 'Client Events Co');
    const client = createWharfClient({ baseUrl: api.url, apiKey: company.key });
    const W = '/inventory/int/v1/warehouses';
    const body = {
      warehouse: {
        name: 'Keyed',
        address: '1 Quay',
        city: 'Rotterdam',
        state: 'ZH',
        zip: '3011',
        capacity: 5,
      },
    };
    const keyed = () => client.POST(W, { params: { header: { 'Idempotency-Key': 'client-key-1' } }, body });
    const first = await keyed();
    const again = await keyed();
    expect(first.response.status).toBe(201);
    expect(again.response.headers.get('idempotent-replayed')).toBe('true');
    expect(again.data!.warehouse.uuid).toBe(first.data!.warehouse.uuid);

    for (let i = 0; i < 4; i++)
      await client.POST(W, { body: { warehouse: { ...body.warehouse, name: `Paged ${i}` } } });
    const seen: string[] = [];
    for await (const event of client.events.list({ limit: 2, event: 'warehouse.created' }))
      seen.push(event.id);
    expect(seen).toHaveLength(5);
    expect(new Set(seen).size).toBe(5);
    expect([...seen].sort().reverse()).toEqual(seen);
  });

  it('verifies a real delivery and returns it typed; the catalog schemas describe it', async () => {
    const { endpoint, secret } = await createEndpoint(api, acme, `${receiver.url}/hook`, [
      'warehouse.created',
    ]);
    expect(endpoint.uuid).toBeDefined();
    const client = createWharfClient({ baseUrl: api.url, apiKey: acme.key });
    await client.POST('/inventory/int/v1/warehouses', {
      body: {
        name: 'Delivered',
        address: '1 Quay',
        city: 'Rotterdam',
        state: 'ZH',
        zip: '3011',
        capacity: 1,
      },
    });
    const delivery = await eventually(async () => receiver.requests.find((r) => r.path === '/hook'), 30_000);

    const event = verifyWebhook(secret, delivery.headers, delivery.body);
    expect(isThinEvent(event)).toBe(false);
    if (event.event !== 'warehouse.created') throw new Error(`unexpected ${event.event}`);
    const created: WarehouseCreatedEvent = event; // narrowed on `event`
    expect(created.data.name).toBe('Delivered');
    expect(created.data.id).toBe(created.data.uuid);
    expect(() =>
      verifyWebhook(secret, delivery.headers, delivery.body.replace('Delivered', 'Forged')),
    ).toThrow(WebhookVerificationError);

    // The catalog's JSON Schemas accept what is delivered and the catalog's own examples, and the
    // generated client knows exactly the catalog's event names.
    const catalog = (await http(api.url, 'GET', '/int/v1/webhook-events', { key: acme.key })).body
      .webhook_events as { name: string; example: unknown; schema: object }[];
    expect(catalog.map((e) => e.name)).toEqual([...WEBHOOK_EVENT_NAMES]);
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    const validate = (name: string, value: unknown) => {
      const check = ajv.compile(catalog.find((e) => e.name === name)!.schema);
      return check(value) ? [] : check.errors;
    };
    expect(validate('warehouse.created', JSON.parse(delivery.body))).toEqual([]);
    for (const entry of catalog)
      expect({ event: entry.name, errors: validate(entry.name, entry.example) }).toEqual({
        event: entry.name,
        errors: [],
      });
    expect(
      validate('warehouse.created', { ...JSON.parse(delivery.body), event: 'warehouse.deleted' }),
    ).not.toEqual([]);
  });

  it('verifies a thin delivery and returns it typed; its href reads the record', async () => {
    const client = createWharfClient({ baseUrl: api.url, apiKey: acme.key });
    const created = await client.POST('/int/v1/webhook-endpoints', {
      body: { url: `${receiver.url}/thin`, events: ['warehouse.created'], payload: 'thin' },
    });
    expect(created.response.status).toBe(201);
    const secret = (created.data as { webhook_endpoint: { secret: string } }).webhook_endpoint.secret;
    const { data } = await client.POST('/inventory/int/v1/warehouses', {
      body: { name: 'Thin', address: '1 Quay', city: 'Rotterdam', state: 'ZH', zip: '3011', capacity: 1 },
    });
    const uuid = data!.warehouse.uuid;
    const delivery = await eventually(async () => receiver.requests.find((r) => r.path === '/thin'), 30_000);

    const event = verifyThinWebhook(secret, delivery.headers, delivery.body);
    if (!isThinEvent(event)) throw new Error(`not thin: ${delivery.body}`);
    expect(event).toEqual({
      id: expect.stringMatching(/^evt_/),
      api_version: 'v1',
      event: 'warehouse.created',
      created_at: expect.any(String),
      data: {
        id: uuid,
        object: 'warehouse',
        href: `${api.url}/inventory/int/v1/warehouses/${uuid}`,
        additionalData: {},
      },
    });
    // @ts-expect-error a thin event carries no record fields
    expect(event.data.name).toBeUndefined();
    const record = await fetch(event.data.href, { headers: { authorization: `Bearer ${acme.key}` } });
    expect(((await record.json()) as { warehouse: { name: string } }).warehouse.name).toBe('Thin');
    expect(() => verifyThinWebhook(secret, delivery.headers, `${delivery.body} `)).toThrow(
      WebhookVerificationError,
    );
  });

  it('types the fleet actions (driver location, order status) and an order with any meta', async () => {
    const client = createWharfClient({ baseUrl: api.url, apiKey: acme.key });
    const F = '/fleet/int/v1';
    const driver = await client.POST(`${F}/drivers`, { body: { driver: { name: 'Dana' } } });
    expect(driver.response.status).toBe(201);
    const uuid = driver.data!.driver.uuid;
    const order = await client.POST(`${F}/orders`, {
      body: { order: { reference: 'PO-4', driver_uuid: uuid, meta: { pallets: 4 } } },
    });
    expect(order.response.status).toBe(201);
    expect(order.data!.order.meta).toEqual({ pallets: 4 });
    // meta is optional.
    const bare = await client.POST(`${F}/orders`, { body: { reference: 'PO-5' } });
    expect(bare.response.status).toBe(201);

    const located = await client.POST(`${F}/drivers/{uuid}/location`, {
      params: { path: { uuid } },
      body: { latitude: 51.92, longitude: 4.48, speed: 12 },
    });
    expect(located.response.status).toBe(200);
    expect(located.data!.driver.location).toMatchObject({ latitude: 51.92, longitude: 4.48, speed: 12 });

    const moved = await client.POST(`${F}/orders/{uuid}/status`, {
      params: { path: { uuid: order.data!.order.uuid } },
      body: { status: 'dispatched' },
    });
    expect(moved.response.status).toBe(200);
    expect(moved.data!.order.status).toBe('dispatched');
    const refused = await client.POST(`${F}/orders/{uuid}/status`, {
      params: { path: { uuid: order.data!.order.uuid } },
      body: { status: 'created' },
    });
    expect(refused.response.status).toBe(422);
    expect(refused.error!.errors[0].source?.pointer).toMatch(/status$/);

    const wrong = () =>
      client.POST(`${F}/orders/{uuid}/status`, {
        params: { path: { uuid } },
        // @ts-expect-error `shipped` is not an order status
        body: { status: 'shipped' },
      });
    expect(typeof wrong).toBe('function');
  });

  it('catches a wrong field name at compile time', () => {
    const client = createWharfClient({ baseUrl: api.url, apiKey: acme.key });
    const typed = async () => {
      const { data } = await client.GET('/inventory/int/v1/warehouses/{uuid}', {
        params: { path: { uuid: '00000000-0000-4000-8000-000000000000' } },
      });
      // @ts-expect-error `nmae` is not a field of a warehouse record
      return data?.warehouse.nmae;
    };
    const body = () =>
      client.POST('/inventory/int/v1/warehouses', {
        // @ts-expect-error `capacty` is not a field of a warehouse body
        body: { warehouse: { name: 'x', address: 'x', city: 'x', state: 'x', zip: 'x', capacty: 1 } },
      });
    // Type checking (npm run lint) is the assertion; the functions exist so the code is real.
    expect(typeof typed).toBe('function');
    expect(typeof body).toBe('function');
  });

  it("types an endpoint's config per destination type", async () => {
    const types = (await http(api.url, 'GET', '/int/v1/destination-types', { key: acme.key })).body
      .destination_types as { name: string }[];
    expect(types.map((t) => t.name)).toEqual([...DESTINATION_TYPE_NAMES]);
    const rabbitmq: EndpointDestination<'rabbitmq'> = {
      type: 'rabbitmq',
      config: { url: 'amqp://127.0.0.1:5672', exchange: 'typed', password: 'guest' },
    };
    const wrong: EndpointDestination<'mqtt'> = {
      type: 'mqtt',
      // @ts-expect-error an mqtt config has a topic, not an exchange
      config: { url: 'mqtt://127.0.0.1', exchange: 'x' },
    };
    void wrong;
    const client = createWharfClient({ baseUrl: api.url, apiKey: acme.key });
    const created = await client.POST('/int/v1/webhook-endpoints', {
      body: { ...rabbitmq, status: 'disabled' },
    });
    expect(created.response.status).toBe(201);
    expect(created.data!.webhook_endpoint).toMatchObject({
      type: 'rabbitmq',
      config: { url: 'amqp://127.0.0.1:5672', exchange: 'typed', password: '[redacted]' },
    });
  });
});
