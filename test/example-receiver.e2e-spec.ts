import { randomUUID } from 'node:crypto';
import { AddressInfo, createServer } from 'node:net';
import { INestApplicationContext } from '@nestjs/common';
import { Webhook } from 'standardwebhooks';
import { DriverLocations, Receiver, WebhookEvent, createReceiver } from '../examples/receiver/src/receiver';
import { TestCompany, createCompany } from './support/accounts';
import { HttpResult, eventually, http } from './support/http';
import { TestApi, startApi } from './support/test-app';
import { FAST_WEBHOOKS, createEndpoint, sql } from './support/webhooks';
import { startWorker } from './support/worker';

const D = '/fleet/int/v1/drivers';
const O = '/fleet/int/v1/orders';

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

const quiet = { info: () => undefined, error: () => undefined };

describe('examples/receiver against the real worker', () => {
  let api: TestApi;
  let worker: INestApplicationContext;
  let acme: TestCompany;
  let secret: string;
  let endpointUuid: string;
  let receiver: Receiver;
  let url: string;
  /** Events the receiver processed in the background. */
  const processed: WebhookEvent[] = [];
  let tracked: { uuid: string };

  const call = (method: string, path: string, body?: unknown) =>
    http(api.url, method, path, { key: acme.key, body });

  /** A request to the receiver signed with `signWith` at `at`, as Wharf would send it. */
  function signed(
    body: string,
    options: { id?: string; at?: Date; signWith?: string; sendBody?: string } = {},
  ) {
    const id = options.id ?? `evt_${randomUUID().replace(/-/g, '')}`;
    const at = options.at ?? new Date();
    const signature = new Webhook(options.signWith ?? secret).sign(id, at, body);
    return http(url, 'POST', '/webhooks', {
      raw: options.sendBody ?? body,
      headers: {
        'content-type': 'application/json',
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': signature,
      },
    });
  }

  const envelope = (event: string, data: Record<string, unknown>) =>
    JSON.stringify({
      id: `evt_${randomUUID().replace(/-/g, '')}`,
      api_version: 'v1',
      event,
      created_at: new Date().toISOString(),
      data: { additionalData: {}, ...data },
    });

  /** The request-log rows of the receiver's endpoint for one event name. */
  const logsOf = (event: string) =>
    sql(
      api,
      `SELECT event_id, response_status, response_body, status, attempt FROM webhook_request_logs
       WHERE webhook_endpoint_uuid = $1 AND event = $2 ORDER BY sent_at, attempt`,
      [endpointUuid, event],
    );

  beforeAll(async () => {
    api = await startApi({ env: FAST_WEBHOOKS });
    worker = await startWorker(api.config);
    acme = await createCompany(api, 'Receiver Co');
    tracked = (await call('POST', D, { driver: { name: 'Tracked' } })).body.driver;

    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    const created = await createEndpoint(api, acme, `${url}/webhooks`);
    secret = created.secret;
    endpointUuid = created.endpoint.uuid as string;
    receiver = createReceiver({
      secret,
      locations: new DriverLocations([tracked.uuid]),
      onEvent: (event) => void processed.push(event),
      logger: quiet,
    });
    await new Promise<void>((resolve) => receiver.server.listen(port, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await worker.close();
    receiver.server.closeAllConnections();
    await new Promise((resolve) => receiver.server.close(resolve));
    await api.close();
  });

  it('accepts genuine deliveries: acknowledged with 2xx, then processed; locations applied', async () => {
    const order = (await call('POST', O, { order: { reference: 'R-1' } })).body.order;
    await call('POST', `${O}/${order.uuid}/status`, { status: 'canceled' });
    const located = await call('POST', `${D}/${tracked.uuid}/location`, {
      latitude: 51.9,
      longitude: 4.48,
      speed: 3,
    });
    expect(located.status).toBe(200);

    const names = ['order.created', 'order.updated', 'order.status_changed', 'order.canceled'];
    await eventually(async () =>
      names.every((name) => processed.some((e) => e.event === name && e.data.id === order.uuid)),
    );
    for (const name of names) {
      const logs = await eventually(async () => {
        const rows = await logsOf(name);
        return rows.length ? rows : undefined;
      });
      expect(logs.map((l) => [l.response_status, l.status])).toEqual([[202, 'successful']]);
      expect(JSON.parse(logs[0].response_body)).toEqual({ status: 'accepted' });
    }
    const canceled = processed.find((e) => e.event === 'order.canceled')!;
    expect(canceled.data.additionalData).toEqual({ previous_status: 'created' });

    const [location] = await eventually(async () => {
      const rows = await logsOf('driver.location_changed');
      return rows.length ? rows : undefined;
    });
    expect(location).toMatchObject({ response_status: 200, status: 'successful' });
    expect(receiver.locations.get(tracked.uuid)).toEqual(located.body.driver.location);
  });

  it('answers the ownership challenge (the real verify route, and a signed challenge)', async () => {
    const verified = await call('POST', `/int/v1/webhook-endpoints/${endpointUuid}/verify`);
    expect(verified.status).toBe(200);
    const [row] = await sql(api, 'SELECT verified_at FROM webhook_endpoints WHERE uuid = $1', [endpointUuid]);
    expect(row.verified_at).not.toBeNull();

    const challenge = randomUUID();
    const res = await signed(JSON.stringify({ type: 'webhook.verification', challenge }));
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { challenge } });
    // An unsigned challenge proves nothing and is refused.
    const forged = await signed(JSON.stringify({ type: 'webhook.verification', challenge }), {
      signWith: `whsec_${Buffer.alloc(32, 7).toString('base64')}`,
    });
    expect(forged.status).toBe(401);
  });

  it('rejects a tampered body and a replayed old timestamp (401), processing nothing', async () => {
    const before = processed.length;
    const body = envelope('order.updated', { id: randomUUID(), status: 'dispatched' });

    const tampered = await signed(body, { sendBody: body.replace('dispatched', 'completed') });
    expect(tampered.status).toBe(401);
    expect(tampered.body).toEqual({ error: expect.stringMatching(/signature/i) });

    const id = `evt_${randomUUID().replace(/-/g, '')}`;
    const replayed = await signed(body, { id, at: new Date(Date.now() - 10 * 60_000) });
    expect(replayed.status).toBe(401);
    expect(replayed.body).toEqual({ error: expect.stringMatching(/timestamp/i) });
    const future = await signed(body, { at: new Date(Date.now() + 10 * 60_000) });
    expect(future.status).toBe(401);

    const unsigned = await http(url, 'POST', '/webhooks', {
      raw: body,
      headers: { 'content-type': 'application/json' },
    });
    expect(unsigned.status).toBe(401);

    // The same message with a fresh timestamp (what a genuine retry is) is accepted: only the staleness was refused.
    expect((await signed(body, { id })).status).toBe(202);
    await receiver.idle();
    expect(processed.length).toBe(before + 1);
  });

  it('de-duplicates by webhook-id: a redelivery is acknowledged but processed once', async () => {
    const before = processed.length;
    const body = envelope('order.updated', { id: randomUUID(), status: 'enroute' });
    const id = `evt_${randomUUID().replace(/-/g, '')}`;
    const first = await signed(body, { id });
    const second = await signed(body, { id });
    expect([first.status, second.status]).toEqual([202, 200]);
    expect(second.body).toEqual({ status: 'duplicate' });
    await receiver.idle();
    expect(
      processed.slice(before).map((e) => (e.event === 'order.updated' ? e.data.status : e.event)),
    ).toEqual(['enroute']);
  });

  it('answers 400 {"error"} for a location it cannot apply: from the worker (unknown driver) and invalid coordinates', async () => {
    const stranger = (await call('POST', D, { driver: { name: 'Not tracked' } })).body.driver;
    await call('POST', `${D}/${stranger.uuid}/location`, { latitude: 10, longitude: 20 });
    const logs = await eventually(async () => {
      const rows = (await logsOf('driver.location_changed')).filter((r) => r.response_status === 400);
      return rows.length ? rows : undefined;
    });
    expect(JSON.parse(logs[0].response_body)).toEqual({ error: `unknown driver ${stranger.uuid}` });
    expect(logs[0].status).toBe('failed');
    expect(receiver.locations.get(stranger.uuid)).toBeUndefined();

    const invalid: [Record<string, unknown>, RegExp][] = [
      [
        { latitude: 123, longitude: 4, heading: null, speed: null, recorded_at: new Date().toISOString() },
        /latitude/,
      ],
      [
        { latitude: 1, longitude: -200, heading: null, speed: null, recorded_at: new Date().toISOString() },
        /longitude/,
      ],
      [
        { latitude: 1, longitude: 2, heading: 400, speed: null, recorded_at: new Date().toISOString() },
        /heading/,
      ],
    ];
    for (const [location, message] of invalid) {
      const res: HttpResult = await signed(
        envelope('driver.location_changed', { id: tracked.uuid, location }),
      );
      expect(res.status).toBe(400);
      expect(Object.keys(res.body)).toEqual(['error']);
      expect(res.body.error).toMatch(message);
    }
    const missing = await signed(envelope('driver.location_changed', { id: tracked.uuid }));
    expect(missing.status).toBe(400);
    expect(receiver.locations.get(tracked.uuid)!.latitude).toBe(51.9);

    // A refused delivery is not remembered as seen: its retry applies once the driver is tracked.
    const later = randomUUID();
    const body = envelope('driver.location_changed', {
      id: later,
      location: {
        latitude: 10,
        longitude: 20,
        heading: null,
        speed: null,
        recorded_at: new Date().toISOString(),
      },
    });
    const id = `evt_${randomUUID().replace(/-/g, '')}`;
    expect((await signed(body, { id })).status).toBe(400);
    receiver.locations.track(later);
    expect((await signed(body, { id })).status).toBe(200);
    expect(receiver.locations.get(later)).toMatchObject({ latitude: 10, longitude: 20 });
  });

  it('refuses what is not a webhook: wrong path, wrong method, not JSON', async () => {
    expect((await http(url, 'POST', '/elsewhere', { body: {} })).status).toBe(404);
    expect((await http(url, 'GET', '/webhooks')).status).toBe(405);
    const notJson = await signed('not json');
    expect(notJson.status).toBe(400);
    expect(notJson.body).toEqual({ error: expect.any(String) });
  });
});
