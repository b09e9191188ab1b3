import { INestApplicationContext } from '@nestjs/common';
import { Webhook } from 'standardwebhooks';
import { RequestLogPurger } from '@wharf/webhooks/worker';
import { TestCompany, createCompany } from './support/accounts';
import { eventually, http } from './support/http';
import { Receiver } from './support/receiver';
import { TestApi, startApi } from './support/test-app';
import { FAST_WEBHOOKS, createEndpoint, sql, warehouse } from './support/webhooks';
import { startWorker } from './support/worker';

const W = '/inventory/int/v1/warehouses';

describe('webhooks: outbox → worker → signed delivery', () => {
  let api: TestApi;
  let worker: INestApplicationContext;
  let receiver: Receiver;

  beforeAll(async () => {
    api = await startApi({ env: FAST_WEBHOOKS });
    worker = await startWorker(api.config);
    receiver = await new Receiver().start();
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

  async function company(): Promise<TestCompany> {
    return createCompany(api, `co-${Math.random().toString(36).slice(2)}`);
  }

  it('delivers create, update and delete as signed POSTs that verify with standardwebhooks', async () => {
    const acme = await company();
    const { secret } = await createEndpoint(api, acme, `${receiver.url}/hook`);
    const created = await http(api.url, 'POST', W, { key: acme.key, body: warehouse('Pier 1') });
    const uuid = created.body.warehouse.uuid;
    await http(api.url, 'PUT', `${W}/${uuid}`, { key: acme.key, body: { warehouse: { name: 'Pier 2' } } });
    await http(api.url, 'DELETE', `${W}/${uuid}`, { key: acme.key });

    await eventually(async () => receiver.requests.length >= 3);
    const byEvent = Object.fromEntries(receiver.requests.map((r) => [JSON.parse(r.body).event, r]));
    expect(Object.keys(byEvent).sort()).toEqual([
      'warehouse.created',
      'warehouse.deleted',
      'warehouse.updated',
    ]);

    for (const request of receiver.requests) {
      const headers = request.headers as Record<string, string>;
      expect(headers['content-type']).toBe('application/json');
      expect(headers['user-agent']).toMatch(/Wharf/);
      expect(new Webhook(secret).verify(request.body, headers)).toEqual(JSON.parse(request.body));
      expect(() =>
        new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(request.body, headers),
      ).toThrow();
      const envelope = JSON.parse(request.body);
      expect(Object.keys(envelope).sort()).toEqual(['api_version', 'created_at', 'data', 'event', 'id']);
      expect(envelope.id).toBe(headers['webhook-id']);
      expect(envelope.api_version).toBe('v1');
      expect(new Date(envelope.created_at).toISOString()).toBe(envelope.created_at);
      expect(envelope.data.id).toBe(uuid);
      expect(envelope.data.uuid).toBe(uuid);
      expect(envelope.data.additionalData).toEqual(expect.any(Object));
    }
    const updated = JSON.parse(byEvent['warehouse.updated'].body);
    expect(updated.data.name).toBe('Pier 2');
    expect(updated.data.additionalData.changes).toEqual({ name: ['Pier 1', 'Pier 2'] });
    expect(JSON.parse(byEvent['warehouse.created'].body).data.name).toBe('Pier 1');
  });

  it('emits nothing for an update that changes nothing, or a write that rolls back', async () => {
    const acme = await company();
    await createEndpoint(api, acme, `${receiver.url}/hook`);
    const created = await http(api.url, 'POST', W, { key: acme.key, body: warehouse('Same') });
    await eventually(async () => receiver.requests.length === 1);
    const count = async () =>
      (
        await sql(api, 'SELECT count(*)::int AS n FROM webhook_events WHERE company_uuid = $1', [acme.uuid])
      )[0].n;
    const before = await count();

    const same = await http(api.url, 'PUT', `${W}/${created.body.warehouse.uuid}`, {
      key: acme.key,
      body: { warehouse: { name: 'Same', capacity: 10 } },
    });
    expect(same.status).toBe(200);
    // Inserted, then refused: a section uuid that is not this warehouse's fails after the warehouse row exists.
    const rolledBack = await http(api.url, 'POST', W, {
      key: acme.key,
      body: warehouse('Ghost', { sections: [{ uuid: '00000000-0000-4000-8000-000000000000', name: 'x' }] }),
    });
    expect(rolledBack.status).toBe(422);
    expect(await sql(api, `SELECT 1 FROM warehouses WHERE name = 'Ghost'`)).toHaveLength(0);
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(await count()).toBe(before);
    expect(receiver.requests).toHaveLength(1);
  });

  it('retries 500, 500, then 200 with the same webhook-id, logging attempts 1..3', async () => {
    const acme = await company();
    const { endpoint } = await createEndpoint(api, acme, `${receiver.url}/hook`);
    receiver.respond = (_r, i) => (i < 2 ? { status: 500, body: 'nope' } : { status: 200, body: 'finally' });
    await http(api.url, 'POST', W, { key: acme.key, body: warehouse('Retry') });
    await eventually(async () => receiver.requests.length === 3, 10_000);
    expect(new Set(receiver.requests.map((r) => r.headers['webhook-id'])).size).toBe(1);
    const logs = await eventually(async () => {
      const rows = await sql(
        api,
        'SELECT attempt, status, response_status, response_body FROM webhook_request_logs WHERE webhook_endpoint_uuid = $1 ORDER BY attempt',
        [endpoint.uuid],
      );
      return rows.length === 3 ? rows : undefined;
    });
    expect(logs).toEqual([
      { attempt: 1, status: 'failed', response_status: 500, response_body: 'nope' },
      { attempt: 2, status: 'failed', response_status: 500, response_body: 'nope' },
      { attempt: 3, status: 'successful', response_status: 200, response_body: 'finally' },
    ]);
    // Delivered at the third attempt: the delivery is done with, its attempts stay in the log.
    expect(
      await sql(api, 'SELECT status, attempts FROM webhook_deliveries WHERE webhook_endpoint_uuid = $1', [
        endpoint.uuid,
      ]),
    ).toEqual([]);
  });

  it('logs a 3xx as a failure without following it, and a slow receiver as a timeout', async () => {
    const acme = await company();
    const { endpoint } = await createEndpoint(api, acme, `${receiver.url}/hook`);
    receiver.respond = (r) =>
      r.path === '/hook'
        ? { status: 302, headers: { location: `${receiver.url}/elsewhere` } }
        : { status: 200 };
    await http(api.url, 'POST', W, { key: acme.key, body: warehouse('Redirect') });
    const failed = await eventually(async () => {
      const rows = await sql(
        api,
        `SELECT status, attempts FROM webhook_deliveries WHERE webhook_endpoint_uuid = $1 AND status = 'failed'`,
        [endpoint.uuid],
      );
      return rows[0];
    });
    expect(failed.attempts).toBe(3);
    expect(receiver.requests.every((r) => r.path === '/hook')).toBe(true);
    const statuses = await sql(
      api,
      'SELECT response_status, status FROM webhook_request_logs WHERE webhook_endpoint_uuid = $1',
      [endpoint.uuid],
    );
    expect(statuses.every((row) => row.response_status === 302 && row.status === 'failed')).toBe(true);

    receiver.requests.length = 0;
    const slow = await createEndpoint(api, acme, `${receiver.url}/slow`, ['warehouse.updated']);
    receiver.respond = () => ({ status: 200, delayMs: 1500 });
    const w = await sql(api, 'SELECT uuid FROM warehouses WHERE company_uuid = $1', [acme.uuid]);
    await http(api.url, 'PUT', `${W}/${w[0].uuid}`, { key: acme.key, body: { capacity: 11 } });
    const timeout = await eventually(async () => {
      const rows = await sql(
        api,
        'SELECT error, response_status, duration_ms FROM webhook_request_logs WHERE webhook_endpoint_uuid = $1',
        [slow.endpoint.uuid],
      );
      return rows[0];
    });
    expect(timeout.error).toBe('timeout');
    expect(timeout.response_status).toBeNull();
    expect(timeout.duration_ms).toBeGreaterThanOrEqual(900);
  });

  it('disables an endpoint that answers 410 Gone, with the reason', async () => {
    const acme = await company();
    const { endpoint } = await createEndpoint(api, acme, `${receiver.url}/gone`);
    receiver.respond = () => ({ status: 410 });
    await http(api.url, 'POST', W, { key: acme.key, body: warehouse('Gone') });
    const row = await eventually(async () => {
      const [ep] = await sql(
        api,
        'SELECT status, disabled_reason, disabled_at FROM webhook_endpoints WHERE uuid = $1',
        [endpoint.uuid],
      );
      return ep.status === 'disabled' ? ep : undefined;
    });
    expect(row.disabled_reason).toMatch(/410/);
    expect(receiver.events('/gone')).toHaveLength(1);
    const [delivery] = await sql(
      api,
      'SELECT status, attempts FROM webhook_deliveries WHERE webhook_endpoint_uuid = $1',
      [endpoint.uuid],
    );
    expect(delivery).toEqual({ status: 'failed', attempts: 1 });
  });

  it('disables an endpoint automatically once it has failed without a success for the configured window', async () => {
    const acme = await company();
    const { endpoint } = await createEndpoint(api, acme, `${receiver.url}/failing`);
    await sql(api, `UPDATE webhook_endpoints SET failing_since = now() - interval '6 days' WHERE uuid = $1`, [
      endpoint.uuid,
    ]);
    receiver.respond = () => ({ status: 500 });
    await http(api.url, 'POST', W, { key: acme.key, body: warehouse('Failing') });
    const row = await eventually(async () => {
      const [ep] = await sql(
        api,
        'SELECT status, disabled_reason, disabled_at FROM webhook_endpoints WHERE uuid = $1',
        [endpoint.uuid],
      );
      return ep.status === 'disabled' ? ep : undefined;
    });
    expect(row.disabled_reason).toMatch(/without a success for 5 days/);
    expect(row.disabled_at).toBeInstanceOf(Date);
  });

  it('a success clears the failure window', async () => {
    const acme = await company();
    const { endpoint } = await createEndpoint(api, acme, `${receiver.url}/recovering`);
    await sql(api, `UPDATE webhook_endpoints SET failing_since = now() - interval '1 day' WHERE uuid = $1`, [
      endpoint.uuid,
    ]);
    await http(api.url, 'POST', W, { key: acme.key, body: warehouse('Recovering') });
    await eventually(async () => {
      const [ep] = await sql(api, 'SELECT failing_since, status FROM webhook_endpoints WHERE uuid = $1', [
        endpoint.uuid,
      ]);
      return ep.failing_since === null && ep.status === 'enabled';
    });
  });

  it('delivers in parallel: a slow endpoint does not stall deliveries to others', async () => {
    const acme = await company();
    await createEndpoint(api, acme, `${receiver.url}/slow-parallel`, ['warehouse.created']);
    await createEndpoint(api, acme, `${receiver.url}/fast-parallel`, ['warehouse.created']);
    // The slow endpoint answers only once every fast delivery has arrived: a stall would never release it.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    receiver.respond = (r) => (r.path === '/slow-parallel' ? { status: 200, until: held } : { status: 200 });
    try {
      await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          http(api.url, 'POST', W, { key: acme.key, body: warehouse(`P${i}`) }),
        ),
      );
      await eventually(async () => receiver.events('/fast-parallel').length === 10, 10_000, 20);
      // And the slow endpoint's own deliveries were in flight together, not one after another.
      await eventually(async () => (receiver.open.get('/slow-parallel') ?? 0) > 1, 5_000, 20);
    } finally {
      release();
    }
    await eventually(async () => {
      const ids = new Set(receiver.events('/slow-parallel').map((event) => event.data.uuid));
      return ids.size === 10;
    });
  });

  it('purges request-log rows older than the retention window and keeps recent ones', async () => {
    const acme = await company();
    const { endpoint } = await createEndpoint(api, acme, `${receiver.url}/retention`);
    await http(api.url, 'POST', W, { key: acme.key, body: warehouse('Retained') });
    await eventually(async () => {
      const rows = await sql(api, 'SELECT 1 FROM webhook_request_logs WHERE webhook_endpoint_uuid = $1', [
        endpoint.uuid,
      ]);
      return rows.length === 1;
    });
    await sql(
      api,
      `INSERT INTO webhook_request_logs (company_uuid, webhook_endpoint_uuid, event_id, event, attempt, url,
         request_headers, request_body, duration_ms, status, sent_at)
       VALUES ($1, $2, 'evt_old', 'warehouse.created', 1, 'http://x', '{}', '{}', 1, 'successful', now() - interval '31 days')`,
      [acme.uuid, endpoint.uuid],
    );
    const purged = await worker.get(RequestLogPurger).purge();
    expect(purged).toBeGreaterThanOrEqual(1);
    const left = await sql(
      api,
      'SELECT event_id FROM webhook_request_logs WHERE webhook_endpoint_uuid = $1',
      [endpoint.uuid],
    );
    expect(left).toHaveLength(1);
    expect(left[0].event_id).not.toBe('evt_old');
  });

  it('filters by event name, and skips disabled endpoints and other companies', async () => {
    const acme = await company();
    const other = await company();
    await createEndpoint(api, acme, `${receiver.url}/created-only`, ['warehouse.created']);
    await createEndpoint(api, acme, `${receiver.url}/all`, ['*']);
    const { endpoint: off } = await createEndpoint(api, acme, `${receiver.url}/disabled`, ['*']);
    await sql(api, `UPDATE webhook_endpoints SET status = 'disabled' WHERE uuid = $1`, [off.uuid]);
    await createEndpoint(api, other, `${receiver.url}/other`, ['*']);

    const created = await http(api.url, 'POST', W, { key: acme.key, body: warehouse('Filter') });
    await http(api.url, 'PUT', `${W}/${created.body.warehouse.uuid}`, {
      key: acme.key,
      body: { name: 'Filtered' },
    });
    await eventually(async () => receiver.events('/all').length === 2);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.events('/created-only').map((e) => e.event)).toEqual(['warehouse.created']);
    expect(
      receiver
        .events('/all')
        .map((e) => e.event)
        .sort(),
    ).toEqual(['warehouse.created', 'warehouse.updated']);
    expect(receiver.events('/disabled')).toHaveLength(0);
    expect(receiver.events('/other')).toHaveLength(0);
  });

  it('logs an answer whose body holds NUL characters (PostgreSQL text cannot), and still completes the delivery', async () => {
    const acme = await company();
    const { endpoint } = await createEndpoint(api, acme, `${receiver.url}/hook`);
    receiver.respond = () => ({ status: 200, body: 'a\u0000b' });
    await http(api.url, 'POST', W, { key: acme.key, body: warehouse('Nul') });
    const [log] = await eventually(async () => {
      const rows = await sql(
        api,
        `SELECT l.response_body, l.status,
           (SELECT count(*)::int FROM webhook_deliveries d WHERE d.uuid = l.webhook_delivery_uuid) AS stored
         FROM webhook_request_logs l WHERE l.webhook_endpoint_uuid = $1`,
        [endpoint.uuid],
      );
      return rows.length ? rows : undefined;
    });
    // Completed: logged as successful, and the delivery done with.
    expect(log).toEqual({ response_body: 'a\uFFFDb', status: 'successful', stored: 0 });
  });

  it('logs the exact body, response status, headers and body (capped at 64 KiB), duration, and never the secret', async () => {
    const acme = await company();
    const { endpoint, secret } = await createEndpoint(api, acme, `${receiver.url}/hook`);
    receiver.respond = () => ({
      status: 200,
      headers: { 'x-receiver': 'yes' },
      body: 'y'.repeat(100 * 1024),
    });
    await http(api.url, 'POST', W, { key: acme.key, body: warehouse('Logged') });
    const [log] = await eventually(async () => {
      const rows = await sql(api, 'SELECT * FROM webhook_request_logs WHERE webhook_endpoint_uuid = $1', [
        endpoint.uuid,
      ]);
      return rows.length ? rows : undefined;
    });
    expect(log.request_body).toBe(receiver.requests[0].body);
    expect(log.response_status).toBe(200);
    expect(log.response_headers['x-receiver']).toBe('yes');
    expect(log.response_body).toHaveLength(64 * 1024);
    expect(log.duration_ms).toEqual(expect.any(Number));
    expect(log.request_headers['webhook-signature']).toBe('[redacted]');
    expect(log.error).toBeNull();
    expect(log.attempt).toBe(1);
    expect(log.test).toBe(false);
    const everything = JSON.stringify(
      await sql(api, 'SELECT * FROM webhook_request_logs WHERE webhook_endpoint_uuid = $1', [endpoint.uuid]),
    );
    expect(everything).not.toContain(secret.slice(6));
    const [stored] = await sql(api, 'SELECT secret FROM webhook_endpoints WHERE uuid = $1', [endpoint.uuid]);
    expect(stored.secret).not.toContain(secret.slice(6));
  });
});
