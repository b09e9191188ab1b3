import { INestApplicationContext } from '@nestjs/common';
import Ajv2020, { ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { createCompany, TestCompany } from './support/accounts';
import { openEventStream } from './support/event-stream';
import { HttpResult, eventually, http } from './support/http';
import { Receiver } from './support/receiver';
import { startApi, TestApi } from './support/test-app';
import { FAST_WEBHOOKS } from './support/webhooks';
import { startWorker } from './support/worker';

const NO_SUCH = '00000000-0000-4000-8000-000000000000';
const DOCUMENT_ID = 'openapi.json';
const WRITES = ['post', 'put', 'patch'];

interface Documented {
  method: string;
  path: string;
  operation: Record<string, any>;
}

interface Call {
  params?: Record<string, string>;
  query?: string;
  body?: unknown;
  raw?: string;
  headers?: Record<string, string>;
  /** The API key to send; null sends none. Default: the test company's. */
  key?: string | null;
}

/** JSON pointer escaping of one segment. */
const segment = (text: string) => text.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * Every operation of the document the api serves (/docs-json) is driven with valid requests and failing
 * ones, and every answer is held to the document: its status is one the operation documents, its JSON body
 * validates (ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses) against that response's schema, and the
 * headers it documents are there where they always are (x-request-id; Location on 201; ETag on GET 200).
 */
describe('OpenAPI contract: live answers of every operation match /docs-json', () => {
  let api: TestApi;
  let worker: INestApplicationContext;
  let receiver: Receiver;
  let acme: TestCompany;
  let document: any;
  const operations = new Map<string, Documented>();
  const validators = new Map<string, ValidateFunction>();
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  addFormats(ajv);
  /** Statuses each operation answered. */
  const answered = new Map<string, Set<number>>();
  const problems: string[] = [];

  beforeAll(async () => {
    api = await startApi({ env: { ...FAST_WEBHOOKS, RATE_LIMIT_PER_MINUTE: '100000' } });
    worker = await startWorker(api.config);
    receiver = await new Receiver().start();
    acme = await createCompany(api, 'Contract Co');
    document = (await http(api.url, 'GET', '/docs-json')).body;
    ajv.addSchema(document, DOCUMENT_ID);
    for (const [path, item] of Object.entries<Record<string, any>>(document.paths)) {
      for (const [method, operation] of Object.entries<Record<string, any>>(item)) {
        operations.set(operation.operationId, { method, path, operation });
      }
    }
  });
  afterAll(async () => {
    await worker?.close();
    await receiver?.stop();
    await api?.close();
  });

  /** `{$ref}` → what it points at in the document. */
  function resolve(value: any): any {
    if (!value?.$ref) return value;
    return String(value.$ref)
      .slice(2)
      .split('/')
      .reduce((node: any, part: string) => node[part.replace(/~1/g, '/').replace(/~0/g, '~')], document);
  }

  /** The validator of a response's JSON body, compiled once per response object. */
  function validator(id: string, status: string, response: any): ValidateFunction | undefined {
    if (!resolve(response).content?.['application/json']?.schema) return undefined;
    const { method, path } = operations.get(id)!;
    const pointer =
      response === resolve(response)
        ? `/paths/${segment(path)}/${method}/responses/${status}`
        : String(document.paths[path][method].responses[status].$ref).slice(1);
    const key = `${pointer}/content/application~1json/schema`;
    let validate = validators.get(key);
    if (!validate) {
      validate = ajv.compile({ $ref: `${DOCUMENT_ID}#${key}` });
      validators.set(key, validate);
    }
    return validate;
  }

  function check(id: string, request: string, res: HttpResult): void {
    const { method, operation } = operations.get(id)!;
    answered.set(id, (answered.get(id) ?? new Set()).add(res.status));
    const where = `${id} (${request}) → ${res.status}`;
    const documented = operation.responses[String(res.status)];
    if (!documented) {
      problems.push(`${where}: status not documented (${res.text.slice(0, 200)})`);
      return;
    }
    const response = resolve(documented);
    const validate = validator(id, String(res.status), documented);
    if (validate) {
      if (!validate(res.body))
        problems.push(
          `${where}: body does not match: ${ajv.errorsText(validate.errors, { separator: '; ' })}` +
            ` — ${res.text.slice(0, 300)}`,
        );
    } else if (res.text !== '') {
      problems.push(`${where}: a body is sent but none is documented`);
    }
    const headers = response.headers ?? {};
    for (const [name, header] of Object.entries<any>(headers)) {
      const value = res.headers.get(name);
      const type = resolve(header).schema?.type;
      if (value !== null && type === 'integer' && !/^\d+$/.test(value))
        problems.push(`${where}: header ${name} is not an integer: ${value}`);
    }
    const expected = [
      'x-request-id',
      ...(res.status === 201 ? ['location'] : []),
      ...(method === 'get' && res.status === 200 ? ['etag'] : []),
    ];
    for (const name of expected) {
      if (!(name in headers)) problems.push(`${where}: header ${name} is not documented`);
      if (res.headers.get(name) === null) problems.push(`${where}: header ${name} is missing`);
    }
  }

  /** Sends one request to an operation, by its operationId, and checks the answer against the document. */
  async function call(id: string, request: Call = {}): Promise<HttpResult> {
    const documented = operations.get(id);
    if (!documented) throw new Error(`${id} is not in the document`);
    const path =
      documented.path.replace(/\{(\w+)\}/g, (_, name: string) =>
        encodeURIComponent(request.params?.[name] ?? NO_SUCH),
      ) + (request.query ?? '');
    const key = request.key === undefined ? acme.key : request.key;
    const res = await http(api.url, documented.method.toUpperCase(), path, {
      body: request.body,
      raw: request.raw,
      headers: request.headers,
      key: key ?? undefined,
    });
    check(id, `${documented.method.toUpperCase()} ${path}`, res);
    return res;
  }

  /**
   * A GET answering an event stream: its status and content type must be documented and x-request-id sent;
   * read until its first bytes, then closed (it never ends).
   */
  async function openStream(id: string, params: Record<string, string> = {}): Promise<void> {
    const { path: template, operation } = operations.get(id)!;
    const path = template.replace(/\{(\w+)\}/g, (_, name: string) => params[name]);
    const stream = await openEventStream(`${api.url}${path}`, { authorization: `Bearer ${acme.key}` });
    answered.set(id, (answered.get(id) ?? new Set()).add(stream.status));
    const type = stream.headers.get('content-type') ?? '';
    const documented = resolve(operation.responses[String(stream.status)]);
    const where = `${id} (GET ${path}) → ${stream.status}`;
    if (!documented?.content?.[type.split(';')[0]]) problems.push(`${where}: ${type} is not documented`);
    if (!stream.headers.get('x-request-id')) problems.push(`${where}: header x-request-id is missing`);
    await eventually(async () => stream.text().length > 0);
    if (!stream.text().startsWith('retry: ')) problems.push(`${where}: no event stream`);
    stream.close();
  }

  /** `call` that must answer `status`; returns the body. */
  async function expectStatus(status: number, id: string, request: Call = {}): Promise<any> {
    const res = await call(id, request);
    expect({ id, status: res.status, body: res.status === status ? undefined : res.body }).toEqual({
      id,
      status,
      body: undefined,
    });
    return res.body;
  }

  it('drives every operation with valid requests, whose answers match their schemas', async () => {
    await expectStatus(200, 'health');
    await expectStatus(200, 'liveness');
    await expectStatus(200, 'listWebhookEvents');
    await expectStatus(200, 'listWebhookSenderAddresses');
    await expectStatus(200, 'listDestinationTypes');

    // API keys.
    const key = (await expectStatus(201, 'createApiKey', { body: { api_key: { name: 'contract' } } }))
      .api_key;
    await expectStatus(200, 'listApiKeys');
    await expectStatus(200, 'revokeApiKey', { params: { uuid: key.uuid } });

    // Who the caller is; portal sessions: opened with the key, traded once for the cookie, revoked.
    await expectStatus(200, 'getSession');
    await expectStatus(200, 'listPermissions');
    const portal = (
      await expectStatus(201, 'createPortalSession', { body: { portal_session: { read_only: true } } })
    ).portal_session;
    await expectStatus(200, 'getPortalSession', { params: { uuid: portal.uuid } });
    await expectStatus(200, 'exchangePortalSession', { body: { token: portal.token }, key: null });
    await expectStatus(401, 'exchangePortalSession', { body: { token: portal.token }, key: null });
    await expectStatus(422, 'exchangePortalSession', { body: {}, key: null });
    await expectStatus(200, 'revokePortalSession', { params: { uuid: portal.uuid } });
    await expectStatus(422, 'createPortalSession', { body: { expires_in: 5 } });

    // Locations, vehicles, drivers and orders with their embedded records.
    const location = async (name: string) =>
      (await expectStatus(201, 'createLocation', { body: { location: { name, city: 'Rotterdam' } } }))
        .location;
    const pickup = await location('Pickup');
    const dropoff = await location('Dropoff');
    const spare = await location('Spare');
    await expectStatus(200, 'listLocations', { query: '?sort=name' });
    await expectStatus(200, 'getLocation', { params: { uuid: pickup.uuid } });
    await expectStatus(200, 'updateLocation', {
      params: { uuid: spare.uuid },
      body: { location: { zip: '3011' } },
    });
    await expectStatus(200, 'patchLocation', { params: { uuid: spare.uuid }, body: { latitude: 51.9 } });

    const vehicle = (
      await expectStatus(201, 'createVehicle', {
        body: { vehicle: { plate_number: 'WH-01', make: 'DAF', year: 2020 } },
      })
    ).vehicle;
    await expectStatus(200, 'listVehicles');
    await expectStatus(200, 'getVehicle', { params: { uuid: vehicle.uuid } });
    await expectStatus(200, 'updateVehicle', {
      params: { uuid: vehicle.uuid },
      body: { vehicle: { model: 'XF' } },
    });
    await expectStatus(200, 'patchVehicle', { params: { uuid: vehicle.uuid }, body: { year: 2021 } });

    const driver = (
      await expectStatus(201, 'createDriver', {
        body: { driver: { name: 'Dana', email: 'dana@example.com', vehicle_uuid: vehicle.uuid } },
      })
    ).driver;
    expect(driver.vehicle).toMatchObject({ uuid: vehicle.uuid });
    await expectStatus(200, 'listDrivers');
    await expectStatus(200, 'getDriver', { params: { uuid: driver.uuid } });
    await expectStatus(200, 'updateDriver', {
      params: { uuid: driver.uuid },
      body: { driver: { phone: '+31 10' } },
    });
    await expectStatus(200, 'patchDriver', { params: { uuid: driver.uuid }, body: { status: 'active' } });
    await expectStatus(200, 'recordDriverLocation', {
      params: { uuid: driver.uuid },
      body: { latitude: 51.92, longitude: 4.48, heading: 90 },
    });

    const order = (
      await expectStatus(201, 'createOrder', {
        body: {
          order: {
            reference: 'PO-1',
            driver_uuid: driver.uuid,
            pickup_location_uuid: pickup.uuid,
            dropoff_location_uuid: dropoff.uuid,
            meta: { pallets: 4 },
          },
        },
      })
    ).order;
    // The embedded driver is served without its own embedded records, as the document says.
    expect(order.driver).toMatchObject({ uuid: driver.uuid });
    expect(order.driver.vehicle).toBeUndefined();
    expect(order.meta).toEqual({ pallets: 4 });
    await expectStatus(201, 'createOrder', { body: { reference: 'PO-2' } });
    await expectStatus(200, 'listOrders', { query: '?status=created' });
    await expectStatus(200, 'getOrder', { params: { uuid: order.uuid } });
    await expectStatus(200, 'updateOrder', {
      params: { uuid: order.uuid },
      body: { order: { notes: 'fragile' } },
    });
    await expectStatus(200, 'patchOrder', { params: { uuid: order.uuid }, body: { scheduled_at: null } });
    await expectStatus(200, 'moveOrderStatus', {
      params: { uuid: order.uuid },
      body: { status: 'dispatched' },
    });
    // A driver on an active order cannot go.
    await expectStatus(409, 'deleteDriver', { params: { uuid: driver.uuid } });

    // Warehouses with their location, sections and docks.
    const warehouse = (
      await expectStatus(201, 'createWarehouse', {
        body: {
          warehouse: {
            name: 'Main',
            address: '1 Quay',
            city: 'Rotterdam',
            state: 'ZH',
            zip: '3011',
            capacity: 10,
            location_uuid: pickup.uuid,
            sections: [{ name: 'A' }],
            docks: [{ dock_number: 'D1', direction: 'inbound' }],
          },
        },
      })
    ).warehouse;
    await expectStatus(200, 'listWarehouses', { query: '?query=main&limit=5' });
    await expectStatus(200, 'getWarehouse', { params: { uuid: warehouse.uuid } });
    await expectStatus(200, 'updateWarehouse', {
      params: { uuid: warehouse.uuid },
      body: { warehouse: { capacity: 12 } },
    });
    await expectStatus(200, 'patchWarehouse', {
      params: { uuid: warehouse.uuid },
      body: { is_primary: true },
    });
    const section = (
      await expectStatus(201, 'createWarehouseSection', {
        body: { warehouse_section: { warehouse_uuid: warehouse.uuid, name: 'B', description: 'cold' } },
      })
    ).warehouse_section;
    await expectStatus(200, 'listWarehouseSections');
    await expectStatus(200, 'getWarehouseSection', { params: { uuid: section.uuid } });
    await expectStatus(200, 'updateWarehouseSection', {
      params: { uuid: section.uuid },
      body: { warehouse_section: { name: 'B2' } },
    });
    await expectStatus(200, 'patchWarehouseSection', {
      params: { uuid: section.uuid },
      body: { description: null },
    });
    const dock = (
      await expectStatus(201, 'createWarehouseDock', {
        body: { warehouse_dock: { warehouse_uuid: warehouse.uuid, dock_number: 'D2', capacity: 2 } },
      })
    ).warehouse_dock;
    await expectStatus(200, 'listWarehouseDocks');
    await expectStatus(200, 'getWarehouseDock', { params: { uuid: dock.uuid } });
    await expectStatus(200, 'updateWarehouseDock', {
      params: { uuid: dock.uuid },
      body: { warehouse_dock: { status: 'occupied' } },
    });
    await expectStatus(200, 'patchWarehouseDock', { params: { uuid: dock.uuid }, body: { capacity: null } });

    // Webhook endpoints and their actions, against a local receiver.
    receiver.respond = (request) => {
      const body = JSON.parse(request.body || '{}');
      return body.type === 'webhook.verification'
        ? { status: 200, body: body.challenge }
        : { status: 200, body: 'ok' };
    };
    const endpoint = (
      await expectStatus(201, 'createWebhookEndpoint', {
        body: { webhook_endpoint: { url: `${receiver.url}/hook`, events: ['*'], description: 'all' } },
      })
    ).webhook_endpoint;
    // A broker endpoint: its config (credentials masked) as the document describes it.
    const broker = (
      await expectStatus(201, 'createWebhookEndpoint', {
        body: {
          webhook_endpoint: {
            type: 'rabbitmq',
            status: 'disabled',
            config: {
              url: 'amqp://127.0.0.1:5672',
              exchange: 'contract',
              username: 'guest',
              password: 'guest',
            },
          },
        },
      })
    ).webhook_endpoint;
    expect(broker.config.password).toBe('[redacted]');
    await expectStatus(200, 'listWebhookEndpoints');
    await expectStatus(200, 'getWebhookEndpoint', { params: { uuid: endpoint.uuid } });
    await expectStatus(200, 'updateWebhookEndpoint', {
      params: { uuid: endpoint.uuid },
      body: { webhook_endpoint: { max_in_flight: 2 } },
    });
    await expectStatus(200, 'patchWebhookEndpoint', {
      params: { uuid: endpoint.uuid },
      body: { rate_limit_per_second: null },
    });
    await expectStatus(200, 'getWebhookEndpointSecret', { params: { uuid: endpoint.uuid } });
    await expectStatus(200, 'getWebhookEndpointQueue', { params: { uuid: endpoint.uuid } });
    await expectStatus(200, 'rotateWebhookEndpointSecret', { params: { uuid: endpoint.uuid } });
    await expectStatus(200, 'disableWebhookEndpoint', { params: { uuid: endpoint.uuid } });
    await expectStatus(200, 'enableWebhookEndpoint', { params: { uuid: endpoint.uuid } });
    await expectStatus(200, 'verifyWebhookEndpoint', { params: { uuid: endpoint.uuid } });
    const test = (
      await expectStatus(200, 'sendWebhookEndpointTest', {
        params: { uuid: endpoint.uuid },
        body: { event: 'order.updated' },
      })
    ).webhook_request_log;
    await expectStatus(200, 'recoverWebhookEndpoint', {
      params: { uuid: endpoint.uuid },
      body: { since: new Date(Date.now() - 3_600_000).toISOString() },
    });

    // A listen session (wharf listen): opened, streamed, a triggered event's delivery answered, ended.
    const session = (
      await expectStatus(201, 'createListenSession', {
        body: { listen_session: { forward_to: 'http://localhost:4242/webhook', events: ['order.created'] } },
      })
    ).listen_session;
    await expectStatus(422, 'createListenSession', { body: { forward_to: 'not a url' } });
    await openStream('streamListenSession', { uuid: session.uuid });
    const listening = await openEventStream(`${api.url}/int/v1/listen-sessions/${session.uuid}/stream`, {
      authorization: `Bearer ${acme.key}`,
    });
    const triggered = call('triggerWebhookEvent', { params: { event: 'order.created' }, body: {} });
    const delivery = await listening.next((event) => event.event === 'delivery', 30_000);
    listening.close();
    await expectStatus(200, 'answerListenSession', {
      params: { uuid: session.uuid },
      body: {
        id: delivery.id,
        status: 200,
        headers: { 'content-type': 'text/plain' },
        body: 'ok',
        duration_ms: 3,
      },
    });
    expect((await triggered).status).toBe(200);
    await expectStatus(404, 'answerListenSession', {
      params: { uuid: session.uuid },
      body: { id: '1-0', status: 200 },
    });
    await expectStatus(404, 'triggerWebhookEvent', { params: { event: 'order.exploded' } });
    await expectStatus(200, 'endListenSession', { params: { uuid: session.uuid } });

    // A real delivery (the worker sends the events of the writes above), its log and a resend.
    await http(api.url, 'PATCH', `/int/v1/locations/${spare.uuid}`, { key: acme.key, body: { zip: '3012' } });
    const delivered = await eventually(async () => {
      const logs = await http(api.url, 'GET', '/int/v1/webhook-request-logs?test=false&limit=1', {
        key: acme.key,
      });
      return logs.body.webhook_request_logs?.[0];
    }, 30_000);
    await expectStatus(200, 'listWebhookRequestLogs', { query: `?webhook_endpoint_uuid=${endpoint.uuid}` });
    await expectStatus(200, 'getWebhookRequestLog', { params: { uuid: delivered.uuid } });

    // Activity: the chart's counts, and the live stream (its answer is a stream, checked as one).
    await expectStatus(200, 'getWebhookActivity', {
      query: `?interval=minute&webhook_endpoint_uuid=${endpoint.uuid}`,
    });
    await expectStatus(400, 'getWebhookActivity', { query: '?interval=week' });
    await expectStatus(404, 'getWebhookActivity', { query: `?webhook_endpoint_uuid=${NO_SUCH}` });
    await openStream('streamWebhookActivity');

    // An endpoint with a payload filter, static headers and auth; where the delivered event went.
    const routed = (
      await expectStatus(201, 'createWebhookEndpoint', {
        body: {
          webhook_endpoint: {
            url: `${receiver.url}/routed`,
            events: ['location.updated'],
            filter: { 'data.zip': { $in: ['3012'] } },
            headers: { 'X-Api-Key': 'contract-key' },
            auth: { type: 'bearer', token: 'contract-token' },
          },
        },
      })
    ).webhook_endpoint;
    await expectStatus(200, 'getWebhookEndpointHeaders', { params: { uuid: routed.uuid } });
    await expectStatus(200, 'testWebhookEndpointFilter', {
      params: { uuid: routed.uuid },
      body: { event_id: delivered.event_id },
    });
    await expectStatus(200, 'testWebhookEndpointFilter', {
      params: { uuid: routed.uuid },
      body: { event: { event: 'location.updated', data: { zip: '1000' } } },
    });
    await expectStatus(422, 'testWebhookEndpointFilter', {
      params: { uuid: routed.uuid },
      body: { event_id: delivered.event_id, filter: { 'data.zip': { $inn: ['3012'] } } },
    });
    await expectStatus(200, 'getEventRouting', { params: { event_id: delivered.event_id } });
    await expectStatus(404, 'getEventRouting', { params: { event_id: 'evt_0000000000000000000000000000' } });
    await expectStatus(200, 'listEvents', { query: '?delivery_success=false&limit=5' });
    await expectStatus(200, 'listEvents', {
      query: `?data_id=${spare.uuid}&event_in=location.created,location.updated`,
    });
    await expectStatus(400, 'listEvents', { query: '?cursor=not-a-cursor' });
    await expectStatus(200, 'getEvent', { params: { event_id: delivered.event_id } });
    await expectStatus(404, 'getEvent', { params: { event_id: 'evt_0000000000000000000000000000' } });
    // A keyed create, and its replay: the same documented answer, marked replayed.
    const keyed = {
      body: { location: { name: 'Keyed', city: 'Delft' } },
      headers: { 'idempotency-key': 'contract-1' },
    };
    const created = await call('createLocation', keyed);
    const replayed = await call('createLocation', keyed);
    expect([created.status, replayed.status, replayed.headers.get('idempotent-replayed')]).toEqual([
      201,
      201,
      'true',
    ]);
    expect(replayed.text).toBe(created.text);
    await expectStatus(422, 'createLocation', { ...keyed, body: { location: { name: 'Other' } } });
    await expectStatus(200, 'deleteWebhookEndpoint', { params: { uuid: routed.uuid } });
    await expectStatus(200, 'resendWebhookRequestLog', { params: { uuid: delivered.uuid } });
    // A test send is not queued: 422.
    await expectStatus(422, 'resendWebhookRequestLog', { params: { uuid: test.uuid } });
    receiver.respond = () => ({ status: 200, body: 'not the challenge' });
    await expectStatus(422, 'verifyWebhookEndpoint', { params: { uuid: endpoint.uuid } });

    // An erasure of the driver's data: queued (202), then polled.
    const erasure = (
      await expectStatus(202, 'createErasure', { body: { resource: 'driver', id: driver.uuid } })
    ).erasure;
    await expectStatus(200, 'getErasure', { params: { uuid: erasure.uuid } });
    await expectStatus(422, 'createErasure', { body: { resource: 'no-such-resource', id: driver.uuid } });

    // Actions refused by their rules, then the deletes.
    await expectStatus(422, 'moveOrderStatus', { params: { uuid: order.uuid }, body: { status: 'created' } });
    await expectStatus(422, 'recordDriverLocation', {
      params: { uuid: driver.uuid },
      body: { latitude: 91 },
    });
    await expectStatus(200, 'deleteOrder', { params: { uuid: order.uuid } });
    await expectStatus(200, 'deleteDriver', { params: { uuid: driver.uuid } });
    await expectStatus(200, 'deleteVehicle', { params: { uuid: vehicle.uuid } });
    await expectStatus(200, 'deleteWarehouseDock', { params: { uuid: dock.uuid } });
    await expectStatus(200, 'deleteWarehouseSection', { params: { uuid: section.uuid } });
    await expectStatus(200, 'deleteWarehouse', { params: { uuid: warehouse.uuid } });
    await expectStatus(200, 'deleteLocation', { params: { uuid: spare.uuid } });
    await expectStatus(200, 'deleteWebhookEndpoint', { params: { uuid: endpoint.uuid } });
  });

  it('drives every operation with failing requests, answered in the documented error format', async () => {
    for (const [id, { method, path, operation }] of operations) {
      const write = WRITES.includes(method);
      // A query parameter holding NUL is refused on every route, before it runs.
      await call(id, { query: '?q=%00' });
      if (operation.security?.length !== 0) await call(id, { key: null });
      if (path.includes('{uuid}')) await call(id, write && operation.requestBody ? { body: {} } : {});
      if (write) {
        await call(id, { raw: 'plain text', headers: { 'content-type': 'text/plain' } });
        await call(id, {
          raw: JSON.stringify({ pad: 'x'.repeat(1_100_000) }),
          headers: { 'content-type': 'application/json' },
        });
        await call(id, { raw: '{"unterminated', headers: { 'content-type': 'application/json' } });
      }
      if (operation.requestBody && !path.includes('{uuid}')) await call(id, { body: [1, 2] });
    }
  });

  it('found every answer documented and matching, and every operation answered with 2xx and 4xx', () => {
    const missing = [...operations.keys()].filter((id) => {
      const statuses = [...(answered.get(id) ?? [])];
      return !statuses.some((s) => s >= 200 && s < 300) || !statuses.some((s) => s >= 400 && s < 500);
    });
    expect(missing).toEqual([]);
    expect(operations.size).toBeGreaterThan(60);
    expect(problems).toEqual([]);
  });

  it('fails on a body that does not match (the check itself is live)', () => {
    const before = problems.length;
    check('getOrder', 'synthetic', {
      status: 200,
      headers: new Headers({ 'x-request-id': 'x', etag: '"x"' }),
      body: { order: { uuid: 'not a uuid' } },
      text: '{}',
    });
    expect(problems.slice(before)).toEqual([expect.stringContaining('body does not match')]);
    problems.length = before;
  });
});
