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
  /** inventory.warehouses:read, and what it takes to reach the request log, the events and endpoints. */
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
          'inventory.warehouses:read',
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
});
