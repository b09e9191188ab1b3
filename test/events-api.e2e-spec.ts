import { randomBytes, randomUUID } from 'node:crypto';
import { INestApplicationContext } from '@nestjs/common';
import { Webhook } from 'standardwebhooks';
import { LIST_UNSUCCESSFUL_EVENTS } from '@wharf/webhooks/worker';
import { DataSource } from 'typeorm';
import { planNodes, PlanNode } from './support/plans';
import { TestCompany, createCompany } from './support/accounts';
import { eventually, http } from './support/http';
import { Receiver } from './support/receiver';
import { TestApi, startApi } from './support/test-app';
import { FAST_WEBHOOKS, sql, warehouse } from './support/webhooks';
import { startWorker } from './support/worker';

const W = '/inventory/int/v1/warehouses';
const E = '/int/v1/events';

/** An event id made at `ms`, as the outbox makes them (`evt_`, the time in base 36, random hex). */
const eventIdAt = (ms: number) => `evt_${ms.toString(36).padStart(9, '0')}${randomBytes(10).toString('hex')}`;

describe('the events API and thin events', () => {
  let api: TestApi;
  let worker: INestApplicationContext;
  let receiver: Receiver;

  const get = (company: TestCompany, path: string) => http(api.url, 'GET', path, { key: company.key });
  const endpointOf = async (company: TestCompany, body: Record<string, unknown>) => {
    const created = await http(api.url, 'POST', '/int/v1/webhook-endpoints', {
      key: company.key,
      body: { webhook_endpoint: body },
    });
    expect(created.status).toBe(201);
    return created.body.webhook_endpoint as { uuid: string; secret: string; payload: string };
  };

  beforeAll(async () => {
    api = await startApi({
      env: {
        ...FAST_WEBHOOKS,
        WEBHOOKS_RETRY_SCHEDULE: '100ms,100ms,100ms',
        RATE_LIMIT_PER_MINUTE: '100000',
      },
    });
    // Links in thin events are built by the worker, with the address the api is reached at.
    worker = await startWorker({ ...api.config, publicUrl: api.url });
    receiver = await new Receiver().start();
  }, 60_000);

  afterAll(async () => {
    await worker?.close();
    await receiver?.stop();
    await api?.close();
  });

  it('delivery_success=false lists exactly the events a receiver missed through a 3-step retry schedule', async () => {
    const acme = await createCompany(api, 'Missed');
    let down = false;
    receiver.respond = (request) =>
      request.path === '/missed' && down ? { status: 500, body: 'down' } : { status: 200, body: 'ok' };
    const endpoint = await endpointOf(acme, { url: `${receiver.url}/missed`, events: ['warehouse.created'] });
    const create = async (name: string) =>
      (await http(api.url, 'POST', W, { key: acme.key, body: warehouse(name) })).body.warehouse
        .uuid as string;
    const logged = (status: string) => async () =>
      (
        await sql(
          api,
          `SELECT count(*)::int AS n FROM webhook_request_logs WHERE webhook_endpoint_uuid = $1 AND status = $2`,
          [endpoint.uuid, status],
        )
      )[0].n as number;

    await create('Before');
    await eventually(async () => (await logged('successful')()) === 1);
    down = true;
    const missed = [await create('Missed 1'), await create('Missed 2')];
    // Four attempts each (the first and three retries), the last one final.
    await eventually(
      async () =>
        (
          await sql(
            api,
            `SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_endpoint_uuid = $1 AND status = 'failed' AND attempts = 4`,
            [endpoint.uuid],
          )
        )[0].n === 2,
      20_000,
    );
    down = false;
    await create('After');
    await eventually(async () => (await logged('successful')()) === 2);

    const failed = await get(acme, `${E}?delivery_success=false`);
    expect(failed.status).toBe(200);
    expect(failed.body.events.map((event: any) => event.data.id)).toEqual([missed[1], missed[0]]);
    expect(failed.body.meta).toEqual({ per_page: 30, next_cursor: null });

    const all = await get(acme, `${E}?event=warehouse.created`);
    expect(all.body.events.map((event: any) => event.data.name)).toEqual([
      'After',
      'Missed 2',
      'Missed 1',
      'Before',
    ]);
    const onEndpoint = await get(acme, `${E}?delivery_success=false&webhook_endpoint_uuid=${endpoint.uuid}`);
    expect(onEndpoint.body.events).toHaveLength(2);
    const ok = await get(acme, `${E}?delivery_success=true&event=warehouse.created`);
    expect(ok.body.events.map((event: any) => event.data.name)).toEqual(['After', 'Before']);

    const one = await get(acme, `${E}/${failed.body.events[0].id}`);
    expect(one.status).toBe(200);
    expect(one.body.event).toEqual(failed.body.events[0]);
    expect(one.body.deliveries).toEqual([
      { webhook_endpoint_uuid: endpoint.uuid, status: 'failed', attempts: 4, next_attempt_at: null },
    ]);
    const delivered = await get(acme, `${E}/${all.body.events[0].id}`);
    expect(delivered.body.deliveries).toEqual([
      { webhook_endpoint_uuid: endpoint.uuid, status: 'delivered', attempts: 1, next_attempt_at: null },
    ]);

    // Read off the partial index of unsuccessful deliveries, each event by its id: no walk of either table
    // (sequential scans off, as the tables of a test are too small for the planner to prefer an index).
    const runner = api.app.get(DataSource).createQueryRunner();
    try {
      await runner.startTransaction();
      await runner.query('SET LOCAL enable_seqscan = off');
      const [{ 'QUERY PLAN': plan }] = await runner.query(
        `EXPLAIN (FORMAT JSON) ${LIST_UNSUCCESSFUL_EVENTS}`,
        [acme.uuid, 'evt_~', 'evt_', null, null, null, null, null, 31],
      );
      const nodes = planNodes(plan[0].Plan as PlanNode);
      expect(
        nodes
          .filter((node) => node['Relation Name'] === 'webhook_deliveries')
          .map((node) => node['Index Name']),
      ).toEqual(['webhook_deliveries_unsuccessful_idx']);
      expect(
        nodes.filter((node) => node['Node Type'] === 'Bitmap Heap Scan' || node['Node Type'] === 'Seq Scan'),
      ).toEqual([]);
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }

    // Another company sees none of it.
    const other = await createCompany(api, 'Other');
    expect((await get(other, `${E}?delivery_success=false`)).body.events).toEqual([]);
    expect((await get(other, `${E}/${failed.body.events[0].id}`)).status).toBe(404);
  }, 60_000);

  it('filters by name, record and time, and refuses bad parameters with a 400 naming them', async () => {
    const acme = await createCompany(api, 'Filters');
    const first = (await http(api.url, 'POST', W, { key: acme.key, body: warehouse('F1') })).body.warehouse;
    await http(api.url, 'PUT', `${W}/${first.uuid}`, { key: acme.key, body: { warehouse: { name: 'F1b' } } });
    await http(api.url, 'POST', W, { key: acme.key, body: warehouse('F2') });
    const names = async (query: string) =>
      (await get(acme, `${E}?${query}`)).body.events.map((event: any) => event.event);
    expect(await names('event=warehouse.updated')).toEqual(['warehouse.updated']);
    expect(await names('event_in=warehouse.updated,warehouse.created')).toHaveLength(3);
    expect(await names(`data_id=${first.uuid}`)).toEqual(['warehouse.updated', 'warehouse.created']);
    expect(await names(`created_at_gte=${new Date(Date.now() + 60_000).toISOString()}`)).toEqual([]);
    expect(await names(`created_at_lte=${new Date(Date.now() - 3_600_000).toISOString()}`)).toEqual([]);
    expect(await names(`created_at_gte=${new Date(Date.now() - 3_600_000).toISOString()}`)).toHaveLength(3);
    for (const [query, parameter] of [
      ['limit=0', 'limit'],
      ['cursor=nope', 'cursor'],
      ['delivery_success=maybe', 'delivery_success'],
      ['webhook_endpoint_uuid=1', 'webhook_endpoint_uuid'],
      ['created_at_gte=yesterday', 'created_at_gte'],
      ['colour=red', 'colour'],
    ]) {
      const refused = await get(acme, `${E}?${query}`);
      expect(refused.status).toBe(400);
      expect(refused.body.errors[0].source).toEqual({ parameter });
    }
    expect((await get(acme, `${E}/evt_0000000000000nothere`)).status).toBe(404);
  });

  it('pages 1,000 events spread over several partitions with next_cursor, each once, newest first', async () => {
    const acme = await createCompany(api, 'Paging');
    const now = Date.now();
    // Five minutes apart: more than three days back, across the partitions of several days.
    const events = Array.from({ length: 1000 }, (_, i) => ({
      id: eventIdAt(now - i * 300_000),
      at: now - i * 300_000,
    }));
    await sql(
      api,
      `INSERT INTO webhook_events (event_id, company_uuid, name, payload, created_at)
       SELECT t.id, $1, 'warehouse.created', json_build_object('id', t.id, 'api_version', 'v1', 'event', 'warehouse.created',
         'created_at', to_char(to_timestamp(t.at / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
         'data', json_build_object('id', gen_random_uuid(), 'additionalData', '{}'::json)), to_timestamp(t.at / 1000.0)
       FROM unnest($2::text[], $3::float8[]) AS t(id, at)`,
      [acme.uuid, events.map((event) => event.id), events.map((event) => event.at)],
    );
    const [{ partitions }] = await sql(
      api,
      'SELECT count(DISTINCT tableoid)::int AS partitions FROM webhook_events WHERE company_uuid = $1',
      [acme.uuid],
    );
    expect(partitions).toBeGreaterThan(1);

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: any = await get(acme, `${E}?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      seen.push(...page.body.events.map((event: any) => event.id));
      cursor = page.body.meta.next_cursor;
      pages++;
    } while (cursor && pages < 20);
    expect(pages).toBe(10);
    expect(seen).toEqual(events.map((event) => event.id));

    // A time window pages the same way, and holds exactly the events created in it.
    const from = new Date(now - 2 * 86_400_000);
    const window: string[] = [];
    cursor = null;
    do {
      const page: any = await get(
        acme,
        `${E}?limit=100&created_at_gte=${from.toISOString()}${cursor ? `&cursor=${cursor}` : ''}`,
      );
      window.push(...page.body.events.map((event: any) => event.id));
      cursor = page.body.meta.next_cursor;
    } while (cursor);
    expect(window).toEqual(events.filter((event) => event.at >= from.getTime()).map((event) => event.id));
  }, 60_000);

  it('a thin endpoint gets a signed reference to the record, and its href serves the record', async () => {
    const acme = await createCompany(api, 'Thin');
    receiver.respond = () => ({ status: 200, body: 'ok' });
    const path = `/thin-${randomUUID()}`;
    const endpoint = await endpointOf(acme, {
      url: `${receiver.url}${path}`,
      events: ['warehouse.created', 'warehouse.updated'],
      payload: 'thin',
    });
    expect(endpoint.payload).toBe('thin');
    const uuid = (await http(api.url, 'POST', W, { key: acme.key, body: warehouse('Thin 1') })).body.warehouse
      .uuid;
    await http(api.url, 'PATCH', `${W}/${uuid}`, { key: acme.key, body: { warehouse: { name: 'Thin 2' } } });
    await eventually(async () => receiver.requests.filter((request) => request.path === path).length === 2);

    const received = receiver.requests.filter((request) => request.path === path);
    const envelopes = received.map((request) =>
      new Webhook(endpoint.secret).verify(request.body, request.headers as Record<string, string>),
    ) as any[];
    const href = `${api.url}${W}/${uuid}`;
    expect(envelopes.find((envelope) => envelope.event === 'warehouse.created')).toEqual({
      id: expect.stringMatching(/^evt_/),
      api_version: 'v1',
      event: 'warehouse.created',
      created_at: expect.any(String),
      data: { id: uuid, object: 'warehouse', href, additionalData: {} },
    });
    expect(envelopes.find((envelope) => envelope.event === 'warehouse.updated').data).toEqual({
      id: uuid,
      object: 'warehouse',
      href,
      additionalData: { changes: ['name'] },
    });
    // Logged as sent.
    const logs = await sql(
      api,
      'SELECT request_body FROM webhook_request_logs WHERE webhook_endpoint_uuid = $1',
      [endpoint.uuid],
    );
    expect(logs.map((log) => log.request_body).sort()).toEqual(
      received.map((request) => request.body).sort(),
    );

    const record = await http(href, 'GET', '', { key: acme.key });
    expect(record.status).toBe(200);
    expect(record.body.warehouse).toMatchObject({ uuid, name: 'Thin 2' });
  }, 30_000);
});
