import { INestApplicationContext } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { TestCompany, createCompany } from './support/accounts';
import { EventStreamClient, openEventStream } from './support/event-stream';
import { http } from './support/http';
import { Receiver } from './support/receiver';
import { TestApi, startApi } from './support/test-app';
import { FAST_WEBHOOKS, warehouse } from './support/webhooks';
import { startWorker } from './support/worker';

const STREAM = '/int/v1/webhook-activity/stream';

describe('webhook activity: the chart’s counts and the live stream of the log', () => {
  let api: TestApi;
  let worker: INestApplicationContext;
  let receiver: Receiver;
  let acme: TestCompany;
  let globex: TestCompany;
  const streams: EventStreamClient[] = [];

  beforeAll(async () => {
    api = await startApi({ env: FAST_WEBHOOKS });
    worker = await startWorker(api.config);
    receiver = await new Receiver().start();
    acme = await createCompany(api, 'Activity Acme');
    globex = await createCompany(api, 'Activity Globex');
  });
  afterAll(async () => {
    for (const stream of streams) stream.close();
    await worker?.close();
    await receiver?.stop();
    await api?.close();
  });

  const endpointOf = async (company: TestCompany, path: string) =>
    (
      await http(api.url, 'POST', '/int/v1/webhook-endpoints', {
        key: company.key,
        body: { webhook_endpoint: { url: `${receiver.url}${path}`, events: ['*'] } },
      })
    ).body.webhook_endpoint.uuid as string;
  const sendTest = async (company: TestCompany, endpoint: string) => {
    const res = await http(api.url, 'POST', `/int/v1/webhook-endpoints/${endpoint}/test`, {
      key: company.key,
      body: {},
    });
    expect(res.status).toBe(200);
    return res.body.webhook_request_log.uuid as string;
  };
  const stream = async (key: string, headers: Record<string, string> = {}) => {
    const opened = await openEventStream(`${api.url}${STREAM}`, {
      authorization: `Bearer ${key}`,
      ...headers,
    });
    streams.push(opened);
    return opened;
  };
  const logOf = (uuid: string) => (e: { event: string; data: any }) =>
    e.event === 'request_log' && e.data.uuid === uuid;

  it('sends a new log row to every stream of its company, and none to another company’s', async () => {
    const ours = await endpointOf(acme, '/acme');
    const theirs = await endpointOf(globex, '/globex');
    const [first, second, other] = [await stream(acme.key), await stream(acme.key), await stream(globex.key)];
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(first.headers.get('x-request-id')).toBeTruthy();

    const globexRow = await sendTest(globex, theirs);
    const acmeRow = await sendTest(acme, ours);
    for (const client of [first, second]) {
      const event = await client.next(logOf(acmeRow));
      expect(event.data).toMatchObject({
        uuid: acmeRow,
        webhook_endpoint_uuid: ours,
        test: true,
        status: 'successful',
      });
      expect(event.id).toMatch(/^\d+-\d+$/);
    }
    await other.next(logOf(globexRow));
    // Globex's row was committed before Acme's, which both Acme streams already have.
    for (const client of [first, second])
      expect(client.events.filter((e) => e.event === 'request_log').map((e) => e.data.uuid)).toEqual([
        acmeRow,
      ]);
    expect(other.events.map((e) => e.data.uuid)).toEqual([globexRow]);

    // A delivery the worker records arrives the same way.
    const created = await http(api.url, 'POST', '/inventory/int/v1/warehouses', {
      key: acme.key,
      body: warehouse('Live'),
    });
    const delivered = await first.next(
      (e) => e.event === 'request_log' && !e.data.test && e.data.event === 'warehouse.created',
      15_000,
    );
    expect(JSON.parse(delivered.data.request_body).data.uuid).toBe(created.body.warehouse.uuid);
  });

  it('replays what a reconnecting client missed after its Last-Event-ID, in order', async () => {
    const endpoint = await endpointOf(acme, '/replay');
    const before = await stream(acme.key);
    const seen = await before.next(logOf(await sendTest(acme, endpoint)));
    before.close();
    const missed = [await sendTest(acme, endpoint), await sendTest(acme, endpoint)];
    const after = await stream(acme.key, { 'last-event-id': seen.id! });
    await after.next(logOf(missed[0]));
    await after.next(logOf(missed[1]));
    const replayed = after.events.filter((e) => e.data.webhook_endpoint_uuid === endpoint);
    expect(replayed.map((e) => e.data.uuid)).toEqual(missed);
  });

  it('tells the streams when an endpoint is disabled, throttled or verified', async () => {
    const endpoint = await endpointOf(acme, '/state');
    const client = await stream(acme.key);
    await http(api.url, 'POST', `/int/v1/webhook-endpoints/${endpoint}/disable`, { key: acme.key });
    const disabled = await client.next((e) => e.event === 'endpoint' && e.data.status === 'disabled');
    expect(disabled.data).toMatchObject({ uuid: endpoint, disabled_reason: 'Disabled by a user.' });
    // What the worker writes when attempts time out.
    await api.app
      .get(DataSource)
      .query(
        `UPDATE webhook_endpoints SET throttled = true, throttled_reason = 'timed out' WHERE uuid = $1`,
        [endpoint],
      );
    const throttled = await client.next((e) => e.event === 'endpoint' && e.data.throttled === true);
    expect(throttled.data).toMatchObject({ uuid: endpoint, throttled_reason: 'timed out' });
  });

  it('holds one LISTEN connection per api process, whatever the number of streams', async () => {
    for (let i = 0; i < 5; i++) await stream(i % 2 ? acme.key : globex.key);
    const database = new URL(api.config.databaseUrl).pathname.slice(1);
    const [row] = await api.app
      .get(DataSource)
      .query(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND query = 'LISTEN wharf_activity'`,
        [database],
      );
    expect(row.n).toBe(1);
  });

  it('ends the stream of a portal session at the heartbeat after its revocation; its cookie then gets 401', async () => {
    const opened = await http(api.url, 'POST', '/int/v1/portal-sessions', { key: acme.key, body: {} });
    const exchanged = await http(api.url, 'POST', '/int/v1/portal-sessions/exchange', {
      body: { token: opened.body.portal_session.token },
    });
    const cookie = /^(wharf_portal=[^;]+)/.exec(exchanged.headers.get('set-cookie') ?? '')![1];
    const client = await stream(acme.key, {});
    const portal = await openEventStream(`${api.url}${STREAM}`, { cookie });
    streams.push(portal);
    expect(portal.status).toBe(200);
    const endpoint = await endpointOf(acme, '/portal-stream');
    await portal.next(logOf(await sendTest(acme, endpoint)));
    await http(api.url, 'DELETE', `/int/v1/portal-sessions/${opened.body.portal_session.uuid}`, {
      key: acme.key,
    });
    await portal.ended;
    // The key's stream, on the same heartbeat, is still open and still gets rows.
    await client.next(logOf(await sendTest(acme, endpoint)));
    expect((await http(api.url, 'GET', STREAM, { headers: { cookie } })).status).toBe(401);
  }, 30_000);

  it('refuses a stream without a key (401) or with a query parameter (400)', async () => {
    expect((await http(api.url, 'GET', STREAM)).status).toBe(401);
    expect(
      (await http(api.url, 'GET', `${STREAM}?company_uuid=${globex.uuid}`, { key: acme.key })).status,
    ).toBe(400);
  });

  it('counts the attempts of a seeded hour: successful, retrying and failed, per hour and per minute', async () => {
    const company = await createCompany(api, 'Activity Chart');
    const [one, two] = [await endpointOf(company, '/chart-1'), await endpointOf(company, '/chart-2')];
    const hour = Math.floor(Date.now() / 3600_000) * 3600_000;
    const minute = Math.floor(Date.now() / 60_000) * 60_000;
    // FAST_WEBHOOKS has two retries: attempts 1 and 2 are retried, a failed attempt 3 is the last.
    const rows: [string, string, number, boolean, number][] = [
      [one, 'successful', 1, false, hour],
      [one, 'successful', 2, false, hour],
      [one, 'successful', 1, false, minute],
      [one, 'failed', 1, false, hour],
      [one, 'failed', 2, false, minute],
      [one, 'failed', 3, false, hour],
      [one, 'failed', 1, true, hour],
      [two, 'successful', 1, false, minute],
    ];
    await api.app.get(DataSource).query(
      `INSERT INTO webhook_request_logs (company_uuid, webhook_endpoint_uuid, event_id, event, attempt, test, url,
         request_headers, request_body, duration_ms, status, sent_at)
       SELECT $1, r.endpoint, 'evt_seeded', 'order.updated', r.attempt, r.test, 'https://example.com', '{}', '{}', 5,
         r.status, to_timestamp(r.at / 1000.0)
       FROM jsonb_to_recordset($2::jsonb) AS r(endpoint uuid, status text, attempt int, test boolean, at bigint)`,
      [
        company.uuid,
        JSON.stringify(
          rows.map(([endpoint, status, attempt, test, at]) => ({ endpoint, status, attempt, test, at })),
        ),
      ],
    );
    const get = (query: string) =>
      http(api.url, 'GET', `/int/v1/webhook-activity${query}`, { key: company.key });

    const hourly = (await get('')).body.webhook_activity;
    expect(hourly).toMatchObject({ interval: 'hour', webhook_endpoint_uuid: null, max_attempts: 3 });
    expect(hourly.buckets).toEqual([
      { at: new Date(hour).toISOString(), successful: 4, retrying: 2, failed: 1 },
    ]);
    expect(hourly.totals).toEqual({ successful: 4, retrying: 2, failed: 1 });

    const perMinute = (await get(`?interval=minute&webhook_endpoint_uuid=${one}`)).body.webhook_activity;
    const expected =
      hour === minute
        ? [{ at: new Date(hour).toISOString(), successful: 3, retrying: 2, failed: 1 }]
        : [
            { at: new Date(hour).toISOString(), successful: 2, retrying: 1, failed: 1 },
            { at: new Date(minute).toISOString(), successful: 1, retrying: 1, failed: 0 },
          ];
    expect(perMinute.buckets).toEqual(expected);

    const theirs = await endpointOf(acme, '/not-yours');
    expect((await get(`?webhook_endpoint_uuid=${theirs}`)).status).toBe(404);
    expect((await get('?interval=week')).status).toBe(400);
    expect((await get('?webhook_endpoint_uuid=nope')).status).toBe(400);
    expect((await get('?since=yesterday')).status).toBe(400);
  });
});
