import { INestApplicationContext } from '@nestjs/common';
import { Webhook } from 'standardwebhooks';
import { TestCompany, createCompany } from './support/accounts';
import { HttpResult, eventually, http } from './support/http';
import { Receiver } from './support/receiver';
import { TestApi, startApi } from './support/test-app';
import { FAST_WEBHOOKS, createEndpoint, sql } from './support/webhooks';
import { startWorker } from './support/worker';

const V = '/fleet/int/v1/vehicles';
const D = '/fleet/int/v1/drivers';
const O = '/fleet/int/v1/orders';
const L = '/int/v1/locations';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

type Json = Record<string, any>;

describe('fleet: vehicles, drivers and orders with their domain events', () => {
  let api: TestApi;
  let worker: INestApplicationContext;
  let receiver: Receiver;

  beforeAll(async () => {
    // 1,000 location updates from one key exceed the default per-key rate limit.
    api = await startApi({ env: { ...FAST_WEBHOOKS, RATE_LIMIT_PER_MINUTE: '100000' } });
    worker = await startWorker(api.config);
    receiver = await new Receiver().start();
  });
  afterAll(async () => {
    await worker.close();
    await receiver.stop();
    await api.close();
  });

  const company = () => createCompany(api, `fleet-${Math.random().toString(36).slice(2)}`);
  const as =
    (co: TestCompany) =>
    (method: string, path: string, body?: unknown): Promise<HttpResult> =>
      http(api.url, method, path, { key: co.key, body });

  /** The company's outbox, in order of creation. */
  async function outbox(co: TestCompany): Promise<{ name: string; event_id: string; payload: Json }[]> {
    return sql(
      api,
      'SELECT name, event_id, payload FROM webhook_events WHERE company_uuid = $1 ORDER BY id',
      [co.uuid],
    );
  }

  function expect422(res: HttpResult, pointer: string, ...mentions: string[]) {
    expect({ status: res.status, pointers: res.body?.errors?.map((e: Json) => e.source?.pointer) }).toEqual({
      status: 422,
      pointers: expect.arrayContaining([pointer]),
    });
    const error = res.body.errors.find((e: Json) => e.source?.pointer === pointer);
    expect(error).toMatchObject({ status: '422', code: 'invalid', title: expect.any(String) });
    for (const word of mentions) expect(error.detail).toContain(word);
  }

  /** A driver (with a vehicle), pickup and dropoff locations, and a `created` order using them. */
  async function fleet(co: TestCompany, withDriver = true) {
    const call = as(co);
    const vehicle = (await call('POST', V, { vehicle: { plate_number: 'RT-1', make: 'Volvo', year: 2023 } }))
      .body.vehicle;
    const driver = (await call('POST', D, { driver: { name: 'Ana', vehicle_uuid: vehicle.uuid } })).body
      .driver;
    const pickup = (await call('POST', L, { location: { name: 'Depot', latitude: 51.9, longitude: 4.4 } }))
      .body.location;
    const dropoff = (await call('POST', L, { location: { name: 'Store', latitude: 52.1, longitude: 4.3 } }))
      .body.location;
    const created = await call('POST', O, {
      order: {
        reference: 'PO-1',
        driver_uuid: withDriver ? driver.uuid : null,
        pickup_location_uuid: pickup.uuid,
        dropoff_location_uuid: dropoff.uuid,
      },
    });
    expect(created.status).toBe(201);
    return { vehicle, driver, pickup, dropoff, order: created.body.order as Json };
  }

  describe('resources', () => {
    it('vehicles: CRUD with defaults, validation and the list grammar', async () => {
      const call = as(await company());
      const created = await call('POST', V, {
        vehicle: { plate_number: 'RT-482-K', make: 'Mercedes-Benz', model: 'Sprinter', year: 2024 },
      });
      expect(created.status).toBe(201);
      const vehicle = created.body.vehicle;
      expect(vehicle).toEqual({
        id: vehicle.uuid,
        uuid: expect.any(String),
        company_uuid: expect.any(String),
        plate_number: 'RT-482-K',
        make: 'Mercedes-Benz',
        model: 'Sprinter',
        year: 2024,
        status: 'active',
        created_at: expect.stringMatching(ISO),
        updated_at: expect.stringMatching(ISO),
      });
      await call('POST', V, { plate_number: 'ZZ-9', status: 'maintenance' });

      const list = await call('GET', `${V}?status=maintenance`);
      expect(list.body.vehicles.map((v: Json) => v.plate_number)).toEqual(['ZZ-9']);
      expect((await call('GET', `${V}?query=sprinter`)).body.vehicles.map((v: Json) => v.uuid)).toEqual([
        vehicle.uuid,
      ]);
      expect((await call('GET', `${V}?sort=plate_number`)).body.meta.total).toBe(2);

      const updated = await call('PUT', `${V}/${vehicle.uuid}`, {
        vehicle: { status: 'inactive', year: 2025 },
      });
      expect(updated.body.vehicle).toMatchObject({ status: 'inactive', year: 2025, make: 'Mercedes-Benz' });
      expect((await call('PATCH', `${V}/${vehicle.uuid}`, { model: 'eSprinter' })).body.vehicle.model).toBe(
        'eSprinter',
      );

      expect422(await call('POST', V, { vehicle: { make: 'No plate' } }), '/data/attributes/plate_number');
      expect422(
        await call('POST', V, { vehicle: { plate_number: 'X', year: 1800 } }),
        '/data/attributes/year',
      );
      expect422(await call('PUT', `${V}/${vehicle.uuid}`, { status: 'scrapped' }), '/data/attributes/status');
      expect422(await call('PUT', `${V}/${vehicle.uuid}`, { colour: 'red' }), '/data/attributes/colour');

      const removed = await call('DELETE', `${V}/${vehicle.uuid}`);
      expect(removed.status).toBe(200);
      expect(removed.body.vehicle.uuid).toBe(vehicle.uuid);
      expect((await call('GET', `${V}/${vehicle.uuid}`)).status).toBe(404);
    });

    it('drivers: vehicle embedded (by uuid or as an object), location read-only', async () => {
      const call = as(await company());
      const vehicle = (await call('POST', V, { vehicle: { plate_number: 'RT-1' } })).body.vehicle;
      const created = await call('POST', D, {
        driver: {
          name: 'Ana de Vries',
          phone: '+31 6 1234 5678',
          email: 'ana@example.com',
          vehicle_uuid: vehicle.uuid,
        },
      });
      expect(created.status).toBe(201);
      const driver = created.body.driver;
      expect(driver).toEqual({
        id: driver.uuid,
        uuid: expect.any(String),
        company_uuid: expect.any(String),
        vehicle_uuid: vehicle.uuid,
        name: 'Ana de Vries',
        phone: '+31 6 1234 5678',
        email: 'ana@example.com',
        status: 'active',
        location: null,
        location_updated_at: null,
        created_at: expect.stringMatching(ISO),
        updated_at: expect.stringMatching(ISO),
        vehicle,
      });

      // An embedded vehicle object without a uuid creates it and links it.
      const nested = await call('POST', D, { driver: { name: 'Bo', vehicle: { plate_number: 'NEW-1' } } });
      expect(nested.status).toBe(201);
      expect(nested.body.driver.vehicle).toMatchObject({
        plate_number: 'NEW-1',
        uuid: nested.body.driver.vehicle_uuid,
      });

      // Echoing the whole record back (as Ember does) is accepted; the location cannot be written here.
      const echoed = await call('PUT', `${D}/${driver.uuid}`, {
        driver: {
          ...driver,
          name: 'Ana',
          location: { latitude: 1, longitude: 2 },
          location_updated_at: null,
        },
      });
      expect(echoed.status).toBe(200);
      expect(echoed.body.driver).toMatchObject({
        name: 'Ana',
        location: null,
        vehicle: { uuid: vehicle.uuid },
      });

      const list = await call('GET', `${D}?vehicle_uuid=${vehicle.uuid}`);
      expect(list.body.drivers.map((d: Json) => d.uuid)).toEqual([driver.uuid]);
      expect(list.body.drivers[0].vehicle.plate_number).toBe('RT-1');

      expect422(await call('POST', D, { driver: { email: 'ana@example.com' } }), '/data/attributes/name');
      expect422(
        await call('POST', D, { driver: { name: 'X', email: 'not-an-email' } }),
        '/data/attributes/email',
      );
      expect422(
        await call('POST', D, { driver: { name: 'X', status: 'asleep' } }),
        '/data/attributes/status',
      );
      expect422(
        await call('POST', D, {
          driver: { name: 'X', vehicle_uuid: '00000000-0000-4000-8000-000000000000' },
        }),
        '/data/attributes/vehicle_uuid',
      );

      // Deleting the vehicle unlinks it.
      await call('DELETE', `${V}/${vehicle.uuid}`);
      expect((await call('GET', `${D}/${driver.uuid}`)).body.driver).toMatchObject({
        vehicle_uuid: null,
        vehicle: null,
      });
    });

    it('orders: driver and both locations embedded, meta a JSON object, status starts created', async () => {
      const co = await company();
      const call = as(co);
      const { driver, pickup, dropoff, order } = await fleet(co);
      expect(order).toEqual({
        id: order.uuid,
        uuid: expect.any(String),
        company_uuid: co.uuid,
        reference: 'PO-1',
        status: 'created',
        driver_uuid: driver.uuid,
        pickup_location_uuid: pickup.uuid,
        dropoff_location_uuid: dropoff.uuid,
        scheduled_at: null,
        notes: null,
        meta: {},
        created_at: expect.stringMatching(ISO),
        updated_at: expect.stringMatching(ISO),
        driver: { ...driver, vehicle: undefined },
        pickup_location: pickup,
        dropoff_location: dropoff,
      });
      expect(order.driver).not.toHaveProperty('vehicle');

      const updated = await call('PUT', `${O}/${order.uuid}`, {
        order: {
          notes: 'Ring twice',
          scheduled_at: '2026-11-20T10:00:00.000Z',
          meta: { pallets: 4, tags: ['cold'], contact: { name: 'Jo' } },
        },
      });
      expect(updated.status).toBe(200);
      expect(updated.body.order).toMatchObject({
        notes: 'Ring twice',
        scheduled_at: '2026-11-20T10:00:00.000Z',
        meta: { pallets: 4, tags: ['cold'], contact: { name: 'Jo' } },
        driver: { uuid: driver.uuid },
      });

      // Embedded locations can be written as objects too.
      const nested = await call('POST', O, {
        order: {
          pickup_location: { name: 'Quay 7', city: 'Rotterdam' },
          dropoff_location: { uuid: dropoff.uuid },
        },
      });
      expect(nested.status).toBe(201);
      expect(nested.body.order.pickup_location).toMatchObject({ name: 'Quay 7', uuid: expect.any(String) });
      expect(nested.body.order.dropoff_location.uuid).toBe(dropoff.uuid);
      expect(nested.body.order.driver).toBeNull();

      const list = await call('GET', `${O}?status=created&driver_uuid=${driver.uuid}&query=po-1`);
      expect(list.body.orders.map((o: Json) => o.uuid)).toEqual([order.uuid]);
      expect(list.body.orders[0].pickup_location.name).toBe('Depot');

      for (const meta of [[1, 2], 'text', 3, null]) {
        expect422(await call('PUT', `${O}/${order.uuid}`, { order: { meta } }), '/data/attributes/meta');
      }
      expect422(
        await call('POST', O, { order: { status: 'dispatched', driver_uuid: driver.uuid } }),
        '/data/attributes/status',
      );
      expect422(
        await call('POST', O, { order: { scheduled_at: 'tomorrow' } }),
        '/data/attributes/scheduled_at',
      );
      expect422(
        await call('PUT', `${O}/${order.uuid}`, { order: { priority: 1 } }),
        '/data/attributes/priority',
      );

      // Deleting the driver unlinks it from the order; deleting the order returns its last state.
      await call('DELETE', `${D}/${driver.uuid}`);
      expect((await call('GET', `${O}/${order.uuid}`)).body.order).toMatchObject({
        driver_uuid: null,
        driver: null,
      });
      const removed = await call('DELETE', `${O}/${order.uuid}`);
      expect(removed.status).toBe(200);
      expect(removed.body.order).toMatchObject({ uuid: order.uuid, notes: 'Ring twice' });
      expect((await call('GET', `${O}/${order.uuid}`)).status).toBe(404);
    });
  });

  describe('order status machine', () => {
    it('created → dispatched → enroute → completed emits, in order, each move’s events with their additionalData, all delivered', async () => {
      const co = await company();
      const call = as(co);
      const { endpoint, secret } = await createEndpoint(api, co, `${receiver.url}/moves`);
      const { driver, order } = await fleet(co);
      const before = (await outbox(co)).length;

      // The three routes that can move an order: PUT, the status route, PATCH.
      const dispatched = await call('PUT', `${O}/${order.uuid}`, { order: { status: 'dispatched' } });
      expect(dispatched.status).toBe(200);
      expect(dispatched.body.order.status).toBe('dispatched');
      const enroute = await call('POST', `${O}/${order.uuid}/status`, { status: 'enroute' });
      expect(enroute.status).toBe(200);
      expect(enroute.body.order).toMatchObject({
        uuid: order.uuid,
        status: 'enroute',
        driver: { uuid: driver.uuid },
      });
      const completed = await call('PATCH', `${O}/${order.uuid}`, { status: 'completed' });
      expect(completed.body.order.status).toBe('completed');

      const events = (await outbox(co)).slice(before);
      expect(events.map((e) => e.name)).toEqual([
        'order.updated',
        'order.status_changed',
        'order.dispatched',
        'order.updated',
        'order.status_changed',
        'order.enroute',
        'driver.route_started',
        'order.updated',
        'order.status_changed',
        'order.completed',
        'driver.delivery_completed',
      ]);
      const data = events.map((e) => e.payload.data);
      const orderEvents = data.filter((d, i) => events[i].name.startsWith('order.'));
      for (const d of orderEvents) expect(d).toMatchObject({ id: order.uuid, uuid: order.uuid });
      expect(data.map((d) => d.additionalData)).toEqual([
        { changes: { status: ['created', 'dispatched'] } },
        { previous_status: 'created' },
        { previous_status: 'created' },
        { changes: { status: ['dispatched', 'enroute'] } },
        { previous_status: 'dispatched' },
        { previous_status: 'dispatched' },
        { order_uuid: order.uuid },
        { changes: { status: ['enroute', 'completed'] } },
        { previous_status: 'enroute' },
        { previous_status: 'enroute' },
        { order_uuid: order.uuid },
      ]);
      // Snapshots taken when each move committed.
      expect(data.map((d) => d.status)).toEqual([
        'dispatched',
        'dispatched',
        'dispatched',
        'enroute',
        'enroute',
        'enroute',
        'active',
        'completed',
        'completed',
        'completed',
        'active',
      ]);
      for (const i of [6, 10]) {
        expect(data[i]).toMatchObject({
          id: driver.uuid,
          uuid: driver.uuid,
          name: 'Ana',
          vehicle: driver.vehicle,
        });
      }

      // Every one of them is delivered, signed, with the same envelope.
      const ids = events.map((e) => e.event_id);
      const delivered = await eventually(async () => {
        const got = receiver.requests.filter(
          (r) => r.path === '/moves' && ids.includes(String(r.headers['webhook-id'])),
        );
        return new Set(got.map((r) => r.headers['webhook-id'])).size === ids.length ? got : undefined;
      });
      for (const request of delivered) {
        const envelope = new Webhook(secret).verify(
          request.body,
          request.headers as Record<string, string>,
        ) as Json;
        const stored = events.find((e) => e.event_id === envelope.id)!;
        expect(envelope).toEqual(stored.payload);
      }
      // The attempt is logged after the receiver answered, so the last rows may trail the requests.
      const logged = await eventually(async () => {
        const rows = await sql(
          api,
          `SELECT DISTINCT event_id FROM webhook_request_logs WHERE webhook_endpoint_uuid = $1 AND status = 'successful'`,
          [endpoint.uuid],
        );
        return ids.every((id) => rows.some((r) => r.event_id === id)) ? rows : undefined;
      });
      expect(logged.map((r) => r.event_id)).toEqual(expect.arrayContaining(ids));
    });

    it('cancel is allowed from created, dispatched and enroute, with previous_status', async () => {
      const co = await company();
      const call = as(co);
      for (const path of [[], ['dispatched'], ['dispatched', 'enroute']]) {
        const { order } = await fleet(co);
        for (const status of path) {
          expect((await call('POST', `${O}/${order.uuid}/status`, { status })).status).toBe(200);
        }
        const before = (await outbox(co)).length;
        const canceled = await call('POST', `${O}/${order.uuid}/status`, { status: 'canceled' });
        expect(canceled.status).toBe(200);
        const previous = path.at(-1) ?? 'created';
        const events = (await outbox(co)).slice(before);
        expect(events.map((e) => [e.name, e.payload.data.additionalData.previous_status])).toEqual([
          ['order.updated', undefined],
          ['order.status_changed', previous],
          ['order.canceled', previous],
        ]);
      }
    });

    it('an illegal move is 422 naming both states, emits nothing and changes nothing', async () => {
      const co = await company();
      const call = as(co);
      const { order } = await fleet(co);
      const done = (await fleet(co)).order;
      for (const status of ['dispatched', 'enroute', 'completed']) {
        await call('POST', `${O}/${done.uuid}/status`, { status });
      }
      const canceled = (await fleet(co)).order;
      await call('POST', `${O}/${canceled.uuid}/status`, { status: 'canceled' });

      const rows = async () =>
        sql(api, 'SELECT row_to_json(o)::text AS row FROM orders o WHERE company_uuid = $1 ORDER BY id', [
          co.uuid,
        ]);
      const stateBefore = await rows();
      const eventsBefore = (await outbox(co)).length;

      const attempts: [string, string, string, unknown][] = [
        [order.uuid, 'created', 'enroute', { status: 'enroute' }],
        [order.uuid, 'created', 'completed', { status: 'completed' }],
        [order.uuid, 'created', 'created', { status: 'created' }],
        [done.uuid, 'completed', 'dispatched', { status: 'dispatched' }],
        [done.uuid, 'completed', 'canceled', { status: 'canceled' }],
        [done.uuid, 'completed', 'enroute', { status: 'enroute' }],
        [canceled.uuid, 'canceled', 'created', { status: 'created' }],
        [canceled.uuid, 'canceled', 'dispatched', { status: 'dispatched' }],
      ];
      for (const [uuid, from, to, body] of attempts) {
        expect422(
          await call('POST', `${O}/${uuid}/status`, body),
          '/data/attributes/status',
          `"${from}"`,
          `"${to}"`,
        );
        if (from !== to) {
          // PUT obeys the same rules, and the other fields of a refused write are not applied either.
          const put = await call('PUT', `${O}/${uuid}`, { order: { status: to, notes: 'should not stick' } });
          expect422(put, '/data/attributes/status', `"${from}"`, `"${to}"`);
        }
      }
      expect422(
        await call('POST', `${O}/${order.uuid}/status`, { status: 'lost' }),
        '/data/attributes/status',
      );
      expect422(
        await call('POST', `${O}/${order.uuid}/status`, { status: 'dispatched', notes: 'x' }),
        '/data/attributes/notes',
      );
      expect422(await call('POST', `${O}/${order.uuid}/status`, {}), '/data/attributes/status');
      expect(
        (await call('POST', `${O}/00000000-0000-4000-8000-000000000000/status`, { status: 'canceled' }))
          .status,
      ).toBe(404);
      // Another company cannot move it either.
      expect(
        (await as(await company())('POST', `${O}/${order.uuid}/status`, { status: 'canceled' })).status,
      ).toBe(404);
      // Echoing the current status in a PUT is no move, and no event.
      expect((await call('PUT', `${O}/${done.uuid}`, { order: { status: 'completed' } })).status).toBe(200);

      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await rows()).toEqual(stateBefore);
      expect((await outbox(co)).length).toBe(eventsBefore);
    });

    it('dispatching without a driver is 422 (PUT and the status route); a dispatched order keeps its driver', async () => {
      const co = await company();
      const call = as(co);
      const { driver, order } = await fleet(co, false);
      const eventsBefore = (await outbox(co)).length;
      expect422(
        await call('POST', `${O}/${order.uuid}/status`, { status: 'dispatched' }),
        '/data/attributes/driver_uuid',
        'driver',
      );
      expect422(
        await call('PUT', `${O}/${order.uuid}`, { order: { status: 'dispatched' } }),
        '/data/attributes/driver_uuid',
      );
      expect422(
        await call('PUT', `${O}/${order.uuid}`, { order: { status: 'dispatched', driver_uuid: null } }),
        '/data/attributes/driver_uuid',
      );
      expect((await outbox(co)).length).toBe(eventsBefore);
      expect((await call('GET', `${O}/${order.uuid}`)).body.order.status).toBe('created');

      // Assigning the driver in the same write as the move is fine.
      const dispatched = await call('PUT', `${O}/${order.uuid}`, {
        order: { status: 'dispatched', driver_uuid: driver.uuid },
      });
      expect(dispatched.status).toBe(200);
      expect(dispatched.body.order).toMatchObject({ status: 'dispatched', driver: { uuid: driver.uuid } });
      expect422(
        await call('PUT', `${O}/${order.uuid}`, { order: { driver_uuid: null } }),
        '/data/attributes/driver_uuid',
      );
      expect((await call('GET', `${O}/${order.uuid}`)).body.order.driver_uuid).toBe(driver.uuid);
    });
  });

  describe('drivers', () => {
    it('deleting a driver unlinks its orders as order.updated events; a driver on an active order cannot be deleted', async () => {
      const co = await company();
      const call = as(co);
      const { driver, vehicle, order } = await fleet(co);
      await call('PUT', `${O}/${order.uuid}`, { order: { status: 'dispatched' } });
      const before = (await outbox(co)).length;

      const refused = await call('DELETE', `${D}/${driver.uuid}`);
      expect(refused.status).toBe(409);
      expect(refused.body.errors[0]).toMatchObject({
        status: '409',
        detail: expect.stringContaining(order.uuid),
      });
      expect((await call('GET', `${D}/${driver.uuid}`)).status).toBe(200);
      expect((await call('GET', `${O}/${order.uuid}`)).body.order.driver_uuid).toBe(driver.uuid);
      expect((await outbox(co)).length).toBe(before);

      await call('POST', `${O}/${order.uuid}/status`, { status: 'canceled' });
      const afterCancel = (await outbox(co)).length;
      expect((await call('DELETE', `${D}/${driver.uuid}`)).status).toBe(200);
      const events = (await outbox(co)).slice(afterCancel);
      expect(events.map((e) => e.name)).toEqual(['order.updated', 'driver.deleted']);
      expect(events[0].payload.data).toMatchObject({ id: order.uuid, driver_uuid: null, driver: null });
      expect(events[0].payload.data.additionalData.changes).toEqual({ driver_uuid: [driver.uuid, null] });

      // The same holds for every ON DELETE SET NULL reference: a vehicle's drivers, a location's orders.
      const { driver: other, vehicle: van, pickup } = await fleet(co);
      const mark = (await outbox(co)).length;
      await call('DELETE', `${V}/${van.uuid}`);
      await call('DELETE', `${L}/${pickup.uuid}`);
      const unlinked = (await outbox(co)).slice(mark);
      expect(unlinked.map((e) => [e.name, e.payload.data.additionalData?.changes])).toEqual([
        ['driver.updated', { vehicle_uuid: [van.uuid, null] }],
        ['vehicle.deleted', undefined],
        ['order.updated', { pickup_location_uuid: [pickup.uuid, null] }],
        ['location.deleted', undefined],
      ]);
      expect(unlinked[0].payload.data.id).toBe(other.uuid);
      expect(vehicle.uuid).not.toBe(van.uuid);
    });

    it('a status change emits driver.status_changed with previous_status', async () => {
      const co = await company();
      const call = as(co);
      const { driver } = await fleet(co);
      const before = (await outbox(co)).length;
      await call('PUT', `${D}/${driver.uuid}`, { driver: { status: 'inactive' } });
      await call('PUT', `${D}/${driver.uuid}`, { driver: { name: 'Ana B.' } });
      await call('PUT', `${D}/${driver.uuid}`, { driver: { status: 'active' } });
      const events = (await outbox(co)).slice(before);
      expect(
        events.map((e) => [e.name, e.payload.data.status, e.payload.data.additionalData.previous_status]),
      ).toEqual([
        ['driver.updated', 'inactive', undefined],
        ['driver.status_changed', 'inactive', 'active'],
        ['driver.updated', 'inactive', undefined],
        ['driver.updated', 'active', undefined],
        ['driver.status_changed', 'active', 'inactive'],
      ]);
      expect(events[1].payload.data).toMatchObject({
        id: driver.uuid,
        vehicle: { uuid: driver.vehicle_uuid },
      });
    });

    it('the location route validates coordinates (422, nothing written) and scopes by company (404)', async () => {
      const co = await company();
      const call = as(co);
      const { driver } = await fleet(co);
      const url = `${D}/${driver.uuid}/location`;
      const before = (await outbox(co)).length;
      const invalid: [unknown, string][] = [
        [{ latitude: 90.0001, longitude: 0 }, '/data/attributes/latitude'],
        [{ latitude: -91, longitude: 0 }, '/data/attributes/latitude'],
        [{ latitude: 0, longitude: 180.5 }, '/data/attributes/longitude'],
        [{ latitude: 0, longitude: -181 }, '/data/attributes/longitude'],
        [{ latitude: 0, longitude: 0, heading: 360.1 }, '/data/attributes/heading'],
        [{ latitude: 0, longitude: 0, heading: -1 }, '/data/attributes/heading'],
        [{ latitude: 0, longitude: 0, speed: -0.1 }, '/data/attributes/speed'],
        [{ latitude: '51.9', longitude: 4.4 }, '/data/attributes/latitude'],
        [{ longitude: 4.4 }, '/data/attributes/latitude'],
        [{ latitude: 1, longitude: 2, altitude: 3 }, '/data/attributes/altitude'],
        [[1, 2], '/data'],
      ];
      for (const [body, pointer] of invalid) expect422(await call('POST', url, body), pointer);
      expect(
        (
          await call('POST', `${D}/00000000-0000-4000-8000-000000000000/location`, {
            latitude: 1,
            longitude: 2,
          })
        ).status,
      ).toBe(404);
      expect((await as(await company())('POST', url, { latitude: 1, longitude: 2 })).status).toBe(404);
      expect((await outbox(co)).length).toBe(before);
      expect((await call('GET', `${D}/${driver.uuid}`)).body.driver.location).toBeNull();

      // The bounds themselves are valid.
      const edge = await call('POST', url, { latitude: -90, longitude: 180, heading: 360, speed: 0 });
      expect(edge.status).toBe(200);
      expect(edge.body.driver.location).toEqual({
        latitude: -90,
        longitude: 180,
        heading: 360,
        speed: 0,
        recorded_at: edge.body.driver.location_updated_at,
      });
    });

    it('1,000 location updates: 1,000 driver.location_changed events as documented, all delivered; the last one is stored', async () => {
      const co = await company();
      const call = as(co);
      const { driver } = await fleet(co);
      const { secret } = await createEndpoint(api, co, `${receiver.url}/locations`, [
        'driver.location_changed',
      ]);
      const before = (await outbox(co)).length;
      const N = 1000;
      const point = (i: number) => ({
        latitude: 51 + i / 10_000,
        longitude: 4 + i / 20_000,
        ...(i % 2 ? { heading: i % 361, speed: i / 100 } : {}),
      });
      let last: HttpResult | undefined;
      for (let i = 0; i < N; i++) {
        last = await call('POST', `${D}/${driver.uuid}/location`, point(i));
        if (last.status !== 200) throw new Error(`update ${i}: ${last.status} ${last.text}`);
      }
      expect(last!.body.driver).toMatchObject({
        uuid: driver.uuid,
        location: { ...point(N - 1), recorded_at: expect.stringMatching(ISO) },
      });

      const events = (await outbox(co)).slice(before);
      expect(events).toHaveLength(N);
      let previousAt = '';
      events.forEach((event, i) => {
        expect(event.name).toBe('driver.location_changed');
        const data = event.payload.data;
        expect(data).toMatchObject({ id: driver.uuid, uuid: driver.uuid, name: 'Ana', additionalData: {} });
        expect(data.location).toEqual({
          latitude: point(i).latitude,
          longitude: point(i).longitude,
          heading: point(i).heading ?? null,
          speed: point(i).speed ?? null,
          recorded_at: expect.stringMatching(ISO),
        });
        expect(data.location_updated_at).toBe(data.location.recorded_at);
        expect(data.location.recorded_at >= previousAt).toBe(true);
        previousAt = data.location.recorded_at;
      });
      // The location route emits only its own event (no driver.updated per fix).
      expect(
        await sql(api, `SELECT 1 FROM webhook_events WHERE company_uuid = $1 AND name = 'driver.updated'`, [
          co.uuid,
        ]),
      ).toHaveLength(0);

      const stored = (await call('GET', `${D}/${driver.uuid}`)).body.driver;
      expect(stored.location).toEqual(events[N - 1].payload.data.location);
      expect(stored.location).toMatchObject(point(N - 1));

      const ids = new Set(events.map((e) => e.event_id));
      const delivered = await eventually(async () => {
        const got = receiver.requests.filter((r) => r.path === '/locations');
        return new Set(got.map((r) => r.headers['webhook-id'])).size >= N ? got : undefined;
      }, 60_000);
      const wh = new Webhook(secret);
      const seen = new Set<string>();
      for (const request of delivered) {
        const envelope = wh.verify(request.body, request.headers as Record<string, string>) as Json;
        expect(ids.has(envelope.id)).toBe(true);
        expect(envelope.event).toBe('driver.location_changed');
        seen.add(envelope.id);
      }
      expect(seen.size).toBe(N);
    });
  });
});
