import { INestApplicationContext } from '@nestjs/common';
import { AccountsService } from '@wharf/accounts';
import { TestCompany, createCompany } from './support/accounts';
import { dbState } from './support/db-state';
import { EventStreamClient, StreamEvent, openEventStream } from './support/event-stream';
import { eventually, http } from './support/http';
import { Receiver } from './support/receiver';
import { TestApi, startApi } from './support/test-app';
import { FAST_WEBHOOKS, warehouse } from './support/webhooks';
import { startWorker } from './support/worker';

const W = '/inventory/int/v1/warehouses';
const D = '/fleet/int/v1/drivers';
const L = '/int/v1/webhook-request-logs';
const E = '/int/v1/webhook-endpoints';

/** Webhooks carry data: what a key may read decides which events it subscribes to and sees. */
describe('permissions: events follow their resource', () => {
  let api: TestApi;
  let worker: INestApplicationContext;
  let receiver: Receiver;
  let acme: TestCompany;
  /**
   * The reads of warehouses and what they embed (sections, docks, a location), and what it takes to reach
   * the request log, the events and endpoints.
   */
  let reader: string;
  const streams: EventStreamClient[] = [];
  const ids = { warehouse: '', driver: '', warehouseEvent: '', driverEvent: '' };

  const as = (key: string, method: string, path: string, body?: unknown) =>
    http(api.url, method, path, { key, body });
  const create = async (path: string, body: unknown) => {
    const res = await as(acme.key, 'POST', path, body);
    expect(res.status).toBe(201);
    return (res.body.warehouse ?? res.body.driver).uuid as string;
  };
  /** The request-log rows (every company key sees them all) of the record `uuid`. */
  const logged = async (uuid: string) =>
    (await as(acme.key, 'GET', `${L}?limit=100`)).body.webhook_request_logs.filter((row: any) =>
      row.request_body.includes(uuid),
    );

  beforeAll(async () => {
    api = await startApi({ env: { ...FAST_WEBHOOKS, RATE_LIMIT_PER_MINUTE: '100000' } });
    worker = await startWorker(api.config);
    receiver = await new Receiver().start();
    acme = await createCompany(api, 'Events Co');
    reader = (
      await api.app
        .get(AccountsService)
        .createApiKey(acme.uuid, 'reader', false, [
          'inventory.*:read',
          'locations.locations:read',
          'events:read',
          'webhooks.logs:read',
          'webhooks.endpoints:write',
        ])
    ).key;
    const all = await as(acme.key, 'POST', E, {
      webhook_endpoint: { url: `${receiver.url}/all`, events: ['*'] },
    });
    expect(all.status).toBe(201);
    ids.warehouse = await create(W, warehouse('Seen'));
    ids.driver = await create(D, { driver: { name: 'Unseen', phone: '+31 6 1234 5678' } });
    // Both delivered and logged: the log holds a driver's data to hide.
    await eventually(async () => (await logged(ids.warehouse)).length && (await logged(ids.driver)).length);
    ids.warehouseEvent = (await logged(ids.warehouse))[0].event_id;
    ids.driverEvent = (await logged(ids.driver))[0].event_id;
  }, 60_000);

  afterAll(async () => {
    for (const stream of streams) stream.close();
    await worker?.close();
    await receiver?.stop();
    await api?.close();
  });

  it('the key lists warehouses and cannot create one', async () => {
    expect((await as(reader, 'GET', W)).body.warehouses.map((w: any) => w.uuid)).toEqual([ids.warehouse]);
    const refused = await as(reader, 'POST', W, warehouse('Refused'));
    expect(refused.body.errors[0]).toMatchObject({
      code: 'insufficient_permission',
      meta: { permission: 'inventory.warehouses:write' },
    });
  });

  it('cannot subscribe an endpoint to driver.created (403, nothing written), but to warehouse.created', async () => {
    const before = await dbState(api);
    for (const events of [['driver.created'], ['warehouse.created', 'driver.updated'], ['*']]) {
      const res = await as(reader, 'POST', E, { webhook_endpoint: { url: `${receiver.url}/mine`, events } });
      expect({ events, status: res.status, error: res.body.errors[0] }).toEqual({
        events,
        status: 403,
        error: expect.objectContaining({ code: 'insufficient_permission', meta: expect.any(Object) }),
      });
    }
    const driverOnly = await as(reader, 'POST', E, {
      webhook_endpoint: { url: `${receiver.url}/mine`, events: ['driver.created'] },
    });
    expect(driverOnly.body.errors[0].meta).toEqual({ permission: 'fleet.drivers:read' });
    expect(await dbState(api)).toEqual(before);

    const mine = await as(reader, 'POST', E, {
      webhook_endpoint: { url: `${receiver.url}/mine`, events: ['warehouse.created'] },
    });
    expect(mine.status).toBe(201);
    // Pointing an endpoint that receives driver events elsewhere is a read of them too.
    const all = (await as(acme.key, 'GET', `${E}?url=${encodeURIComponent(`${receiver.url}/all`)}`)).body
      .webhook_endpoints[0];
    const moved = await as(reader, 'PATCH', `${E}/${all.uuid}`, { url: `${receiver.url}/stolen` });
    expect(moved.body.errors[0].meta).toEqual({ permission: 'fleet.drivers:read' });
    expect((await as(reader, 'PATCH', `${E}/${all.uuid}`, { description: 'renamed' })).status).toBe(200);
    expect((await as(acme.key, 'GET', `${E}/${all.uuid}`)).body.webhook_endpoint.url).toBe(
      `${receiver.url}/all`,
    );
  });

  it('sees no driver event in the request log', async () => {
    const everything = (await as(acme.key, 'GET', L)).body.webhook_request_logs.map((row: any) => row.event);
    expect(everything).toEqual(expect.arrayContaining(['warehouse.created', 'driver.created']));
    const page = (await as(reader, 'GET', L)).body;
    expect(page.webhook_request_logs.map((row: any) => row.event)).toContain('warehouse.created');
    expect(page.webhook_request_logs.filter((row: any) => row.event.startsWith('driver.'))).toEqual([]);
    expect(page.meta.total).toBe(everything.filter((event: string) => !event.startsWith('driver.')).length);
    for (const query of ['event=driver.created', 'event_like=driver', 'query=driver'])
      expect({ query, rows: (await as(reader, 'GET', `${L}?${query}`)).body.webhook_request_logs }).toEqual({
        query,
        rows: [],
      });
    const [driverRow] = await logged(ids.driver);
    expect((await as(reader, 'GET', `${L}/${driverRow.uuid}`)).status).toBe(404);
    expect((await as(acme.key, 'GET', `${L}/${driverRow.uuid}`)).status).toBe(200);
  });

  it('sees no driver event in the events API, nor its routing', async () => {
    const all = (await as(acme.key, 'GET', '/int/v1/events')).body.events.map((e: any) => e.id);
    expect(all).toEqual(expect.arrayContaining([ids.warehouseEvent, ids.driverEvent]));
    const listed = (await as(reader, 'GET', '/int/v1/events')).body.events;
    expect(listed.map((e: any) => e.id)).toContain(ids.warehouseEvent);
    expect(listed.filter((e: any) => e.event.startsWith('driver.'))).toEqual([]);
    expect((await as(reader, 'GET', '/int/v1/events?event=driver.created')).body.events).toEqual([]);
    expect(
      (await as(reader, 'GET', '/int/v1/events?event_in=driver.created,warehouse.created')).body.events,
    ).toHaveLength(1);
    for (const path of [`/int/v1/events/${ids.driverEvent}`, `/int/v1/events/${ids.driverEvent}/routing`]) {
      expect({ path, status: (await as(reader, 'GET', path)).status }).toEqual({ path, status: 404 });
      expect({ path, status: (await as(acme.key, 'GET', path)).status }).toEqual({ path, status: 200 });
    }
    expect((await as(reader, 'GET', `/int/v1/events/${ids.warehouseEvent}/routing`)).status).toBe(200);
  });

  it('gets no driver row on the live stream, while a full key does', async () => {
    const open = async (key: string) => {
      const stream = await openEventStream(`${api.url}/int/v1/webhook-activity/stream`, {
        authorization: `Bearer ${key}`,
      });
      streams.push(stream);
      expect(stream.status).toBe(200);
      return stream;
    };
    const [full, restricted] = [await open(acme.key), await open(reader)];
    const rowOf = (uuid: string) => (event: StreamEvent) =>
      event.event === 'request_log' && String(event.data.request_body).includes(uuid);
    const driver = await create(D, { driver: { name: 'Live' } });
    await full.next(rowOf(driver), 15_000);
    // Rows go to every stream in the order they are read: a warehouse after the driver arrives after it.
    const sentinel = await create(W, warehouse('Sentinel'));
    await restricted.next(rowOf(sentinel), 15_000);
    expect(restricted.events.filter(rowOf(driver))).toEqual([]);
    expect(restricted.events.filter((event) => String(event.data?.event).startsWith('driver.'))).toEqual([]);
  });
  it('an event carries what its record embeds: subscribing to it needs their reads too (403 naming the first lacking)', async () => {
    const keyOf = async (permissions: string[]) =>
      (await api.app.get(AccountsService).createApiKey(acme.uuid, 'embeds', false, permissions)).key;
    const cases: [string[], string, string][] = [
      [['inventory.warehouses:read'], 'warehouse.created', 'locations.locations:read'],
      [['fleet.orders:read'], 'order.created', 'fleet.drivers:read'],
      [['fleet.orders:read', 'fleet.drivers:read'], 'order.updated', 'locations.locations:read'],
    ];
    const keys = [];
    for (const [reads] of cases) keys.push(await keyOf([...reads, 'webhooks.endpoints:write']));
    const before = await dbState(api);
    for (const [i, [, event, lacking]] of cases.entries()) {
      const key = keys[i];
      const res = await as(key, 'POST', E, {
        webhook_endpoint: { url: `${receiver.url}/e`, events: [event] },
      });
      expect({ event, status: res.status, meta: res.body.errors?.[0].meta }).toEqual({
        event,
        status: 403,
        meta: { permission: lacking },
      });
    }
    // Deliveries of earlier cases' writes may still be logged meanwhile: the endpoints are what a refusal keeps.
    const endpoints = (state: Record<string, string>) => state.webhook_endpoints;
    expect(endpoints(await dbState(api))).toEqual(endpoints(before));
    // With every read an order embeds, it subscribes.
    const enough = await keyOf([
      'fleet.orders:read',
      'fleet.drivers:read',
      'locations.*',
      'webhooks.endpoints:write',
    ]);
    const res = await as(enough, 'POST', E, {
      webhook_endpoint: { url: `${receiver.url}/e`, events: ['order.created'] },
    });
    expect(res.status).toBe(201);
    // Without them, the warehouse events are not shown either: only events whose every read the key holds.
    const narrow = await keyOf(['inventory.warehouses:read', 'events:read']);
    expect((await as(narrow, 'GET', '/int/v1/events')).body.events).toEqual([]);
    expect((await as(reader, 'GET', '/int/v1/events')).body.events.map((e: any) => e.id)).toContain(
      ids.warehouseEvent,
    );
  });

  it('counts in the activity chart only the attempts of events it may read', async () => {
    const activity = async (key: string) =>
      (await as(key, 'GET', '/int/v1/webhook-activity?interval=minute')).body.webhook_activity.totals;
    const rows = (await as(acme.key, 'GET', `${L}?limit=100&test=false`)).body.webhook_request_logs as any[];
    const readable = rows.filter((row) => !row.event.startsWith('driver.'));
    expect(rows.length).toBeGreaterThan(readable.length);
    expect((await activity(acme.key)).successful).toBe(
      rows.filter((row) => row.status === 'successful').length,
    );
    expect((await activity(reader)).successful).toBe(
      readable.filter((row) => row.status === 'successful').length,
    );
  });

  it('recovering an endpoint queues every failed delivery, and lists only those of events it may read', async () => {
    receiver.respond = (request) =>
      request.path.startsWith('/flaky') ? { status: 500, body: 'down' } : { status: 200, body: 'ok' };
    const since = new Date(Date.now() - 1000).toISOString();
    const flaky = await as(acme.key, 'POST', E, {
      webhook_endpoint: { url: `${receiver.url}/flaky`, events: ['warehouse.created', 'driver.created'] },
    });
    expect(flaky.status).toBe(201);
    const endpoint = flaky.body.webhook_endpoint.uuid as string;
    const driver = await create(D, { driver: { name: 'Failing' } });
    const shed = await create(W, warehouse('Failing'));
    // Both deliveries failed for good: their last attempt (the schedule has two retries) is logged.
    const lastAttempts = async () =>
      (await as(acme.key, 'GET', `${L}?webhook_endpoint_uuid=${endpoint}&attempt=3&limit=10`)).body
        .webhook_request_logs.length;
    await eventually(async () => (await lastAttempts()) === 2, 30_000);
    receiver.respond = () => ({ status: 200, body: 'ok' });
    const recovered = await as(reader, 'POST', `${E}/${endpoint}/recover`, { since });
    expect(recovered.status).toBe(200);
    expect(recovered.body.meta.queued).toBe(2);
    expect(recovered.body.webhook_deliveries.map((d: any) => d.event)).toEqual(['warehouse.created']);
    // Both were queued: the driver's is delivered too.
    await eventually(async () => {
      const rows = (await as(acme.key, 'GET', `${L}?webhook_endpoint_uuid=${endpoint}&status=successful`))
        .body.webhook_request_logs as any[];
      return [driver, shed].every((uuid) => rows.some((row) => row.request_body.includes(uuid)));
    }, 30_000);
  });
});
