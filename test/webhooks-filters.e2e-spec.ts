import { INestApplicationContext } from '@nestjs/common';
import { DeliveryStore } from '@wharf/webhooks';
import { FAN_OUT, OutboxRelay } from '@wharf/webhooks/worker';
import { TestCompany, createCompany } from './support/accounts';
import { eventually, http } from './support/http';
import { Receiver } from './support/receiver';
import { TestApi, startApi } from './support/test-app';
import { FAST_WEBHOOKS, createEndpoint, deliveredCount, sql } from './support/webhooks';
import { startWorker } from './support/worker';

const O = '/fleet/int/v1/orders';
const E = '/int/v1/webhook-endpoints';

describe('webhooks: payload filters evaluated at fan-out', () => {
  let api: TestApi;
  let worker: INestApplicationContext;
  let receiver: Receiver;
  let acme: TestCompany;

  beforeAll(async () => {
    api = await startApi({ env: { ...FAST_WEBHOOKS, RATE_LIMIT_PER_MINUTE: '100000' } });
    worker = await startWorker(api.config);
    receiver = await new Receiver().start();
    acme = await createCompany(api, 'Filters');
  });
  afterAll(async () => {
    await worker.close();
    await receiver.stop();
    await api.close();
  });

  async function filtered(path: string, filter: unknown, events = ['order.created']) {
    const { endpoint } = await createEndpoint(api, acme, `${receiver.url}${path}`, events);
    const set = await http(api.url, 'PUT', `${E}/${endpoint.uuid as string}`, {
      key: acme.key,
      body: { webhook_endpoint: { filter } },
    });
    expect(set.status).toBe(200);
    return endpoint.uuid as string;
  }

  it('200 orders of mixed statuses: the filtered endpoint gets exactly the matching ones, no delivery rows for the rest', async () => {
    const events = ['order.status_changed'];
    const filteredUuid = await filtered(
      '/done',
      { 'data.status': { $in: ['completed', 'canceled'] } },
      events,
    );
    const { endpoint: all } = await createEndpoint(api, acme, `${receiver.url}/all`, events);
    const driver = await http(api.url, 'POST', '/fleet/int/v1/drivers', {
      key: acme.key,
      body: { driver: { name: 'Ana' } },
    });
    expect(driver.status).toBe(201);
    // i % 4: stays created; canceled; dispatched; dispatched, enroute, completed.
    const moves = [[], ['canceled'], ['dispatched'], ['dispatched', 'enroute', 'completed']];
    const orders = Array.from({ length: 200 }, (_, i) => moves[i % 4]);
    for (let i = 0; i < orders.length; i += 20) {
      await Promise.all(
        orders.slice(i, i + 20).map(async (path, j) => {
          const created = await http(api.url, 'POST', O, {
            key: acme.key,
            body: { order: { reference: `ord-${i + j}`, driver_uuid: driver.body.driver.uuid } },
          });
          expect(created.status).toBe(201);
          for (const status of path) {
            const moved = await http(api.url, 'POST', `${O}/${created.body.order.uuid}/status`, {
              key: acme.key,
              body: { status },
            });
            expect(moved.status).toBe(200);
          }
        }),
      );
    }
    const changes = orders.reduce((n, path) => n + path.length, 0);
    await eventually(async () => (await deliveredCount(api, all.uuid)) === changes, 30_000);
    await eventually(async () => (await deliveredCount(api, filteredUuid)) === 100, 30_000);
    expect(receiver.events('/done')).toHaveLength(100);
    expect(receiver.events('/done').filter((e) => e.data.status === 'canceled')).toHaveLength(50);
    expect(receiver.events('/done').filter((e) => e.data.status === 'completed')).toHaveLength(50);
    // Every event was fanned out (the unfiltered endpoint got them all): the rest made no row at all.
    const rows = await sql(
      api,
      `SELECT (SELECT count(*)::int FROM webhook_deliveries WHERE webhook_endpoint_uuid = $1) AS deliveries,
              (SELECT count(*)::int FROM webhook_request_logs WHERE webhook_endpoint_uuid = $1) AS logged`,
      [filteredUuid],
    );
    expect(rows[0]).toEqual({ deliveries: 0, logged: 100 });
  });

  it('a bad filter is a 422 pointing into it, and changes nothing', async () => {
    const { endpoint } = await createEndpoint(api, acme, `${receiver.url}/bad`);
    const bad = await http(api.url, 'PUT', `${E}/${endpoint.uuid as string}`, {
      key: acme.key,
      body: { webhook_endpoint: { filter: { 'data.status': { $inn: ['completed'] } }, description: 'x' } },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0].source.pointer).toBe('/data/attributes/filter/data.status/$inn');
    expect(bad.body.errors[0].detail).toMatch(/Unknown operator "\$inn"/);
    const created = await http(api.url, 'POST', E, {
      key: acme.key,
      body: { webhook_endpoint: { url: `${receiver.url}/x`, filter: { 'data.capacity': { $gte: true } } } },
    });
    expect(created.status).toBe(422);
    expect(created.body.errors[0].source.pointer).toBe('/data/attributes/filter/data.capacity/$gte');
    const big = await http(api.url, 'POST', E, {
      key: acme.key,
      body: {
        webhook_endpoint: {
          url: `${receiver.url}/x`,
          filter: { 'data.a': { $in: Array(99).fill('y'.repeat(50)) } },
        },
      },
    });
    expect(big.status).toBe(422);
    expect(big.body.errors[0].source.pointer).toBe('/data/attributes/filter');
    const [row] = await sql(
      api,
      'SELECT filter, filter_path, description FROM webhook_endpoints WHERE uuid = $1',
      [endpoint.uuid],
    );
    expect(row).toEqual({ filter: null, filter_path: null, description: null });
  });

  it('$in takes as many values as a 4 KiB filter holds; a value of the wrong kind is refused at its index', async () => {
    const references = Array.from({ length: 215 }, (_, i) => `ref-${i}`);
    const uuid = await filtered('/many', { 'data.reference': { $in: references } });
    const test = (reference: string) =>
      http(api.url, 'POST', `${E}/${uuid}/filter-test`, {
        key: acme.key,
        body: { event: { event: 'order.created', data: { reference } } },
      });
    expect((await test('ref-214')).body).toMatchObject({ matches: true, failed_clause: null });
    expect((await test('ref-215')).body).toMatchObject({
      matches: false,
      failed_clause: { pointer: '/data.reference/$in' },
    });
    const refused = await http(api.url, 'PUT', `${E}/${uuid}`, {
      key: acme.key,
      body: { webhook_endpoint: { filter: { 'data.reference': { $nin: [...references, { a: 1 }] } } } },
    });
    expect([refused.status, refused.body.errors]).toEqual([
      422,
      [
        expect.objectContaining({
          detail: '$nin takes an array of strings, numbers, booleans or null; this value is an object.',
          source: { pointer: '/data/attributes/filter/data.reference/$nin/215' },
        }),
      ],
    ]);
    const [row] = await sql(api, 'SELECT filter FROM webhook_endpoints WHERE uuid = $1', [uuid]);
    expect(row.filter).toEqual({ 'data.reference': { $in: references } });
  });

  it('filter-test answers whether an event matches and which clause failed; a draft is checked like a save', async () => {
    const uuid = await filtered('/ft', {
      'data.status': { $in: ['completed', 'canceled'] },
      $or: [{ 'data.reference': { $prefix: 'vip-' } }, { 'data.notes': { $contains: 'urgent' } }],
    });
    const test = (body: unknown) =>
      http(api.url, 'POST', `${E}/${uuid}/filter-test`, { key: acme.key, body });
    const event = (data: Record<string, unknown>) => ({ event: { event: 'order.created', data } });

    expect((await test(event({ status: 'completed', reference: 'vip-1' }))).body).toEqual({
      matches: true,
      failed_clause: null,
      subscribed: true,
    });
    expect((await test(event({ status: 'created', reference: 'vip-1' }))).body).toEqual({
      matches: false,
      failed_clause: { pointer: '/data.status/$in', clause: ['completed', 'canceled'] },
      subscribed: true,
    });
    expect(
      (await test(event({ status: 'canceled', reference: 'x', notes: 'not urgent!' }))).body.matches,
    ).toBe(true);
    expect((await test(event({ status: 'canceled', reference: 'x' }))).body.failed_clause).toEqual({
      pointer: '/$or',
      clause: [{ 'data.reference': { $prefix: 'vip-' } }, { 'data.notes': { $contains: 'urgent' } }],
    });

    // A stored event, by id, against a draft filter.
    const order = await http(api.url, 'POST', O, { key: acme.key, body: { order: { reference: 'r' } } });
    const [stored] = await sql(
      api,
      `SELECT event_id FROM webhook_events WHERE payload->'data'->>'uuid' = $1`,
      [order.body.order.uuid],
    );
    const draft = await test({ event_id: stored.event_id, filter: { 'data.status': { $ne: 'created' } } });
    expect(draft.body).toEqual({
      matches: false,
      failed_clause: { pointer: '/data.status/$ne', clause: 'created' },
      subscribed: true,
    });
    const badDraft = await test({ event_id: stored.event_id, filter: { 'data.status': { $regex: 'x' } } });
    expect(badDraft.status).toBe(422);
    expect(badDraft.body.errors[0].source.pointer).toBe('/data/attributes/filter/data.status/$regex');
    expect((await test({})).status).toBe(422);
    expect((await test({ event_id: 'evt_doesnotexist' })).status).toBe(422);
  });

  it('GET /events/:event_id/routing says, for every endpoint, why it did or did not get the event', async () => {
    const beta = await createCompany(api, 'Routing');
    const mk = async (path: string, events: string[], filter?: unknown) => {
      const { endpoint } = await createEndpoint(api, beta, `${receiver.url}${path}`, events);
      if (filter)
        await http(api.url, 'PUT', `${E}/${endpoint.uuid as string}`, {
          key: beta.key,
          body: { webhook_endpoint: { filter } },
        });
      return endpoint.uuid as string;
    };
    const gets = await mk('/r-gets', ['order.created'], { 'data.reference': 'r-1' });
    const filteredOut = await mk('/r-filtered', ['*'], { 'data.reference': { $in: ['other'] } });
    const otherEvent = await mk('/r-other', ['order.updated']);
    const disabled = await mk('/r-disabled', ['*']);
    await http(api.url, 'POST', `${E}/${disabled}/disable`, { key: beta.key });
    const order = await http(api.url, 'POST', O, { key: beta.key, body: { order: { reference: 'r-1' } } });
    const [event] = await sql(
      api,
      `SELECT event_id FROM webhook_events WHERE payload->'data'->>'uuid' = $1`,
      [order.body.order.uuid],
    );
    await eventually(async () => (await deliveredCount(api, gets)) === 1);
    const later = await mk('/r-later', ['*']);

    const routing = await http(api.url, 'GET', `/int/v1/events/${event.event_id}/routing`, { key: beta.key });
    expect(routing.status).toBe(200);
    expect(routing.body.event).toMatchObject({
      event_id: event.event_id,
      name: 'order.created',
      fanned_out: true,
    });
    const by = Object.fromEntries(routing.body.routing.map((r: any) => [r.webhook_endpoint_uuid, r]));
    expect(Object.keys(by).sort()).toEqual([gets, filteredOut, otherEvent, disabled, later].sort());
    expect(by[gets]).toMatchObject({ reason: 'delivered', delivery: { status: 'delivered', attempts: 1 } });
    expect(by[filteredOut]).toMatchObject({
      reason: 'filter',
      delivery: null,
      failed_clause: { pointer: '/data.reference/$in', clause: ['other'] },
    });
    expect(by[otherEvent]).toMatchObject({ reason: 'event_not_subscribed', delivery: null });
    expect(by[disabled]).toMatchObject({ reason: 'disabled', status: 'disabled', delivery: null });
    expect(by[later]).toMatchObject({ reason: 'created_after_event', delivery: null });

    // Another company's event is not found; neither is a malformed id.
    expect(
      (await http(api.url, 'GET', `/int/v1/events/${event.event_id}/routing`, { key: acme.key })).status,
    ).toBe(404);
    expect((await http(api.url, 'GET', `/int/v1/events/nope/routing`, { key: beta.key })).status).toBe(404);
  });

  // Last: it stops the worker's relay, so that the events wait for the one fan-out call it makes itself.
  it('one fan-out statement per batch of events whatever the number of filtered endpoints', async () => {
    const gamma = await createCompany(api, 'Statements');
    for (let i = 0; i < 12; i++) {
      const { endpoint } = await createEndpoint(api, gamma, `${receiver.url}/s${i}`, ['order.created']);
      await http(api.url, 'PUT', `${E}/${endpoint.uuid as string}`, {
        key: gamma.key,
        body: { webhook_endpoint: { filter: { 'data.reference': { $prefix: `s${i % 3}-` } } } },
      });
    }
    await worker.get(OutboxRelay).onApplicationShutdown();
    for (let i = 0; i < 30; i++)
      await http(api.url, 'POST', O, { key: gamma.key, body: { order: { reference: `s${i % 3}-${i}` } } });
    const store = api.app.get(DeliveryStore);
    const pool = (store as unknown as { pool: { query: (...args: unknown[]) => unknown } }).pool;
    const texts: string[] = [];
    const query = pool.query.bind(pool);
    const spy = jest.spyOn(pool, 'query').mockImplementation((...args: unknown[]) => {
      const config = args[0] as { text?: string } | string;
      texts.push(typeof config === 'string' ? config : (config.text ?? ''));
      return query(...args);
    });
    let claimed: number;
    try {
      ({ claimed } = await store.fanOut());
    } finally {
      spy.mockRestore();
    }
    expect(claimed).toBe(30);
    expect(texts).toEqual([FAN_OUT]);
    // 30 orders, each matching the 4 endpoints of its prefix: 120 deliveries made by that one statement
    // (some may be delivered, and so deleted, by now: their attempts are in the log).
    const [{ made }] = await sql(
      api,
      `SELECT count(*)::int AS made FROM (
         SELECT event_id, webhook_endpoint_uuid FROM webhook_deliveries WHERE company_uuid = $1
         UNION SELECT event_id, webhook_endpoint_uuid FROM webhook_request_logs WHERE company_uuid = $1) pairs`,
      [gamma.uuid],
    );
    expect(made).toBe(120);
  });
});
