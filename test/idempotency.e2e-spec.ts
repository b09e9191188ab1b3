import { IdempotencyPurge, PURGE_BATCH, poolOf } from '@wharf/core';
import { DataSource } from 'typeorm';
import { TestCompany, createCompany } from './support/accounts';
import { HttpResult, http } from './support/http';
import { TestApi, startApi } from './support/test-app';
import { sql, warehouse } from './support/webhooks';

const W = '/inventory/int/v1/warehouses';
const L = '/int/v1/locations';

describe('Idempotency-Key on POST', () => {
  let api: TestApi;
  let acme: TestCompany;
  let globex: TestCompany;

  const post = (company: TestCompany, path: string, body: unknown, key?: string) =>
    http(api.url, 'POST', path, { key: company.key, body, headers: key ? { 'idempotency-key': key } : {} });
  const count = async (text: string, params: unknown[]) => (await sql(api, text, params))[0].n as number;
  const warehousesNamed = (name: string) =>
    count('SELECT count(*)::int AS n FROM warehouses WHERE name = $1', [name]);
  const eventsAbout = (event: string, name: string) =>
    count(`SELECT count(*)::int AS n FROM webhook_events WHERE name = $1 AND payload->'data'->>'name' = $2`, [
      event,
      name,
    ]);

  beforeAll(async () => {
    api = await startApi({ env: { RATE_LIMIT_PER_MINUTE: '100000' } });
    acme = await createCompany(api, 'Acme');
    globex = await createCompany(api, 'Globex');
  }, 60_000);

  afterAll(() => api?.close());

  it('ten tries of one create, five at once: one record, one event, ten identical answers, nine replayed', async () => {
    const body = warehouse('Keyed ten');
    const key = 'create-keyed-ten';
    const concurrent = await Promise.all(Array.from({ length: 5 }, () => post(acme, W, body, key)));
    const answers: HttpResult[] = [...concurrent];
    for (let i = 0; i < 5; i++) answers.push(await post(acme, W, body, key));

    expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(201));
    expect(new Set(answers.map((answer) => answer.text)).size).toBe(1);
    expect(new Set(answers.map((answer) => answer.headers.get('location'))).size).toBe(1);
    expect(answers[0].headers.get('location')).toBe(`${W}/${answers[0].body.warehouse.uuid}`);
    const replayed = answers.filter((answer) => answer.headers.get('idempotent-replayed') === 'true');
    expect(replayed).toHaveLength(9);
    expect(await warehousesNamed('Keyed ten')).toBe(1);
    expect(await eventsAbout('warehouse.created', 'Keyed ten')).toBe(1);
    // Each answer is its own exchange: its own request id.
    expect(new Set(answers.map((answer) => answer.headers.get('x-request-id'))).size).toBe(10);
  });

  it('the same body with its fields in another order and other whitespace is the same request', async () => {
    const key = 'create-reordered';
    const first = await post(acme, W, warehouse('Reordered', { capacity: 5 }), key);
    const { name, ...rest } = warehouse('Reordered', { capacity: 5 }).warehouse;
    const again = await http(api.url, 'POST', W, {
      key: acme.key,
      raw: `{ "warehouse" : ${JSON.stringify({ ...rest, name }, null, 2)} }`,
      headers: { 'content-type': 'application/json', 'idempotency-key': key },
    });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    expect(await warehousesNamed('Reordered')).toBe(1);
  });

  it('the same key with another body, or on another route, is a 422 that changes nothing', async () => {
    const key = 'create-reused';
    expect((await post(acme, W, warehouse('Reused A'), key)).status).toBe(201);

    const otherBody = await post(acme, W, warehouse('Reused B'), key);
    expect(otherBody.status).toBe(422);
    expect(otherBody.body.errors[0]).toMatchObject({
      status: '422',
      code: 'idempotency_key_reused',
      source: { header: 'Idempotency-Key' },
    });
    expect(otherBody.headers.get('idempotent-replayed')).toBeNull();

    const otherRoute = await post(acme, L, { location: { name: 'Reused' } }, key);
    expect(otherRoute.status).toBe(422);
    expect(otherRoute.body.errors[0].code).toBe('idempotency_key_reused');
    expect(otherRoute.body.errors[0].detail).toContain(`POST ${W}`);

    expect(await warehousesNamed('Reused B')).toBe(0);
    expect(await count('SELECT count(*)::int AS n FROM locations WHERE name = $1', ['Reused'])).toBe(0);
    expect(await warehousesNamed('Reused A')).toBe(1);
  });

  it("a key is its company's: another company's request with the same key string runs", async () => {
    const key = 'create-shared-string';
    const a = await post(acme, W, warehouse('Shared string'), key);
    const b = await post(globex, W, warehouse('Shared string'), key);
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.headers.get('idempotent-replayed')).toBeNull();
    expect(b.body.warehouse.uuid).not.toBe(a.body.warehouse.uuid);
    expect(b.body.warehouse.company_uuid).toBe(globex.uuid);
    expect(await warehousesNamed('Shared string')).toBe(2);
    // And each company's repeat gets its own answer.
    const bAgain = await post(globex, W, warehouse('Shared string'), key);
    expect(bAgain.headers.get('idempotent-replayed')).toBe('true');
    expect(bAgain.text).toBe(b.text);
  });

  it('a refused request (4xx) is stored and replayed; nothing is written by either', async () => {
    const key = 'create-refused';
    const body = { warehouse: { address: 'no name', capacity: 3 } };
    const first = await post(acme, W, body, key);
    expect(first.status).toBe(422);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await post(acme, W, body, key);
    expect(again.status).toBe(422);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    expect(await count(`SELECT count(*)::int AS n FROM warehouses WHERE address = 'no name'`, [])).toBe(0);
  });

  it('a write of several statements (a transaction) with a key: what it wrote before refusing is rolled back', async () => {
    // The pickup location is written first, then the order's hook refuses the status: a 422 after a write.
    const body = {
      order: {
        reference: 'Keyed refusal',
        status: 'dispatched',
        pickup_location: { name: 'Partial pickup' },
      },
    };
    const first = await post(acme, '/fleet/int/v1/orders', body, 'order-refused');
    expect(first.status).toBe(422);
    const again = await post(acme, '/fleet/int/v1/orders', body, 'order-refused');
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    expect(await count('SELECT count(*)::int AS n FROM locations WHERE name = $1', ['Partial pickup'])).toBe(
      0,
    );
    // Without the key the same refusal leaves nothing either: the pinned transaction changes no rule.
    expect((await post(acme, '/fleet/int/v1/orders', body)).status).toBe(422);
    expect(await count('SELECT count(*)::int AS n FROM locations WHERE name = $1', ['Partial pickup'])).toBe(
      0,
    );

    const nested = { order: { reference: 'Keyed nested', pickup_location: { name: 'Nested pickup' } } };
    const created = await Promise.all(
      [0, 1, 2].map(() => post(acme, '/fleet/int/v1/orders', nested, 'order-nested')),
    );
    expect(created.map((answer) => answer.status)).toEqual([201, 201, 201]);
    expect(new Set(created.map((answer) => answer.text)).size).toBe(1);
    expect(await count('SELECT count(*)::int AS n FROM locations WHERE name = $1', ['Nested pickup'])).toBe(
      1,
    );
    expect(await count(`SELECT count(*)::int AS n FROM orders WHERE reference = 'Keyed nested'`, [])).toBe(1);
    expect(
      await count(
        `SELECT count(*)::int AS n FROM webhook_events WHERE name = 'order.created' AND payload->'data'->>'reference' = 'Keyed nested'`,
        [],
      ),
    ).toBe(1);
  });

  it('custom actions and the management API are covered: one driver.location_changed, one endpoint', async () => {
    const driver = (await post(acme, '/fleet/int/v1/drivers', { driver: { name: 'Keyed driver' } })).body
      .driver;
    const location = { latitude: 51.9, longitude: 4.4 };
    const path = `/fleet/int/v1/drivers/${driver.uuid}/location`;
    const moves = [];
    for (let i = 0; i < 3; i++) moves.push(await post(acme, path, location, 'driver-move-1'));
    expect(moves.map((move) => move.status)).toEqual([200, 200, 200]);
    expect(new Set(moves.map((move) => move.text)).size).toBe(1);
    expect(
      await count(
        `SELECT count(*)::int AS n FROM webhook_events WHERE name = 'driver.location_changed' AND payload->'data'->>'id' = $1`,
        [driver.uuid],
      ),
    ).toBe(1);

    const endpoint = { webhook_endpoint: { url: 'http://127.0.0.1:9/keyed', events: ['*'] } };
    const created = await Promise.all(
      [0, 1, 2].map(() => post(acme, '/int/v1/webhook-endpoints', endpoint, 'endpoint-create-1')),
    );
    expect(created.map((answer) => answer.status)).toEqual([201, 201, 201]);
    expect(new Set(created.map((answer) => answer.text)).size).toBe(1);
    expect(
      await count(
        `SELECT count(*)::int AS n FROM webhook_endpoints WHERE url = 'http://127.0.0.1:9/keyed'`,
        [],
      ),
    ).toBe(1);
  });

  it('a key that is not 1–255 printable characters is a 400 naming the header, and nothing runs', async () => {
    for (const key of ['x'.repeat(256), 'caf\u00e9']) {
      const answer = await http(api.url, 'POST', W, {
        key: acme.key,
        body: warehouse('Bad key'),
        headers: { 'idempotency-key': key },
      }).catch(() => undefined);
      // fetch refuses to send a non-Latin-1 header value itself; a 256-character key reaches the api.
      if (!answer) continue;
      expect(answer.status).toBe(400);
      expect(answer.body.errors[0].source).toEqual({ header: 'Idempotency-Key' });
    }
    expect(await warehousesNamed('Bad key')).toBe(0);
  });

  it('an expired key is purged in batches by the expiry index, and can then be used again', async () => {
    const key = 'create-expiring';
    const first = await post(acme, W, warehouse('Expiring 1'), key);
    expect(first.status).toBe(201);
    await sql(
      api,
      `INSERT INTO idempotency_keys (company_uuid, key, route, body_hash, status, headers, body, expires_at)
       SELECT $1, 'old-' || i, 'POST /x', 'h', 201, '{}', '{}', now() - interval '1 hour' FROM generate_series(1, $2) i`,
      [acme.uuid, PURGE_BATCH * 2 + 5],
    );
    await sql(api, `UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE key = $1`, [
      key,
    ]);
    // Expired but not purged yet: the key is free again (a new request, not a replay).
    const reused = await post(acme, W, warehouse('Expiring 2'), key);
    expect(reused.status).toBe(201);
    expect(reused.headers.get('idempotent-replayed')).toBeNull();
    await sql(api, `UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE key = $1`, [
      key,
    ]);

    const live = await count('SELECT count(*)::int AS n FROM idempotency_keys WHERE expires_at > now()', []);
    const purged = await new IdempotencyPurge(poolOf(api.app.get(DataSource))).purge();
    expect(purged).toBe(PURGE_BATCH * 2 + 6);
    expect(await count('SELECT count(*)::int AS n FROM idempotency_keys WHERE expires_at <= now()', [])).toBe(
      0,
    );
    expect(await count('SELECT count(*)::int AS n FROM idempotency_keys', [])).toBe(live);
  });
});
