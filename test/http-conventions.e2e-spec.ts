import { createCompany, TestCompany } from './support/accounts';
import { http } from './support/http';
import { startApi, TestApi } from './support/test-app';

const WAREHOUSES = '/inventory/int/v1/warehouses';
const WAREHOUSE = {
  name: 'North',
  address: '1 Quay',
  city: 'Rotterdam',
  state: 'ZH',
  zip: '3011',
  capacity: 5,
};

describe('HTTP conventions: Location, 405 + Allow, OPTIONS, ETag/304', () => {
  let api: TestApi;
  let acme: TestCompany;

  beforeAll(async () => {
    api = await startApi();
    acme = await createCompany(api, 'Conventions Co');
  });
  afterAll(() => api.close());

  it('answers 201 with Location, the created record’s URL, which serves that record', async () => {
    const created = await http(api.url, 'POST', WAREHOUSES, {
      key: acme.key,
      body: { warehouse: WAREHOUSE },
    });
    expect(created.status).toBe(201);
    const uuid = created.body.warehouse.uuid;
    expect(created.headers.get('location')).toBe(`${WAREHOUSES}/${uuid}`);
    const read = await http(api.url, 'GET', created.headers.get('location')!, { key: acme.key });
    expect(read.status).toBe(200);
    expect(read.body.warehouse.uuid).toBe(uuid);

    // Beyond the generated routes: a webhook endpoint and an API key.
    const endpoint = await http(api.url, 'POST', '/int/v1/webhook-endpoints', {
      key: acme.key,
      body: { webhook_endpoint: { url: 'https://example.com/hook', events: ['*'] } },
    });
    expect(endpoint.status).toBe(201);
    expect(endpoint.headers.get('location')).toBe(
      `/int/v1/webhook-endpoints/${endpoint.body.webhook_endpoint.uuid}`,
    );
    const key = await http(api.url, 'POST', '/int/v1/api-keys', { key: acme.key, body: { name: 'ci' } });
    expect(key.status).toBe(201);
    expect(key.headers.get('location')).toBe(`/int/v1/api-keys/${key.body.api_key.uuid}`);
    // Not on other statuses.
    const invalid = await http(api.url, 'POST', WAREHOUSES, { key: acme.key, body: { warehouse: {} } });
    expect(invalid.status).toBe(422);
    expect(invalid.headers.get('location')).toBeNull();
  });

  it('answers a wrong method on a served path with 405, Allow and a JSON:API error', async () => {
    const cases: [method: string, path: string, allow: string][] = [
      ['DELETE', WAREHOUSES, 'GET, HEAD, POST, OPTIONS'],
      [
        'POST',
        `${WAREHOUSES}/00000000-0000-4000-8000-000000000000`,
        'GET, HEAD, PUT, PATCH, DELETE, OPTIONS',
      ],
      [
        'GET',
        '/int/v1/webhook-endpoints/00000000-0000-4000-8000-000000000000/rotate-secret',
        'POST, OPTIONS',
      ],
      ['PUT', '/health', 'GET, HEAD, OPTIONS'],
    ];
    for (const [method, path, allow] of cases) {
      const res = await http(api.url, method, path, { key: acme.key });
      expect({ method, path, status: res.status, allow: res.headers.get('allow') }).toEqual({
        method,
        path,
        status: 405,
        allow,
      });
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.body.errors).toEqual([
        expect.objectContaining({ status: '405', code: 'method_not_allowed', detail: expect.any(String) }),
      ]);
    }
    // An unknown path stays a 404.
    const unknown = await http(api.url, 'DELETE', '/inventory/int/v1/nothing-here', { key: acme.key });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('allow')).toBeNull();
    expect(unknown.body.errors[0].code).toBe('not_found');
  });

  it('answers OPTIONS without a preflight in its own format: 204 with Allow, or a 404 error', async () => {
    const known = await http(api.url, 'OPTIONS', `${WAREHOUSES}?limit=1`);
    expect(known.status).toBe(204);
    expect(known.headers.get('allow')).toBe('GET, HEAD, POST, OPTIONS');
    expect(known.text).toBe('');
    const unknown = await http(api.url, 'OPTIONS', '/nothing-here');
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toMatch(/^application\/json/);
    expect(unknown.body.errors[0]).toMatchObject({
      status: '404',
      detail: 'No route OPTIONS "/nothing-here".',
    });
    // A real preflight is still CORS's.
    const preflight = await http(api.url, 'OPTIONS', WAREHOUSES, {
      headers: { origin: 'http://localhost:4200', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
  });

  it('answers a path with an empty record segment as no route (never a 405 that allows the method sent)', async () => {
    const empty = await http(api.url, 'GET', `${WAREHOUSES}/`, { key: acme.key });
    expect(empty.status).toBe(404);
    expect(empty.headers.get('allow')).toBeNull();
  });

  it('gives the answers to a plain OPTIONS their x-request-id, as every other answer has', async () => {
    for (const path of [WAREHOUSES, '/nothing-here']) {
      const answer = await http(api.url, 'OPTIONS', path, { headers: { 'x-request-id': 'options-trace-1' } });
      expect(answer.headers.get('x-request-id')).toBe('options-trace-1');
    }
  });

  it('tags GET one and GET list with a strong ETag and answers a matching If-None-Match with 304', async () => {
    const created = await http(api.url, 'POST', WAREHOUSES, {
      key: acme.key,
      body: { warehouse: { ...WAREHOUSE, name: 'Tagged Zürich 🚢' } },
    });
    expect(created.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const one = `${WAREHOUSES}/${created.body.warehouse.uuid}`;
    for (const path of [one, `${WAREHOUSES}?sort=name`]) {
      const first = await http(api.url, 'GET', path, { key: acme.key });
      // The JSON text PostgreSQL built goes out as bytes: still typed JSON, and its length counted in bytes.
      expect({
        type: first.headers.get('content-type'),
        length: Number(first.headers.get('content-length')),
      }).toEqual({ type: 'application/json; charset=utf-8', length: Buffer.byteLength(first.text) });
      const tag = first.headers.get('etag')!;
      expect({ path, tag }).toEqual({ path, tag: expect.stringMatching(/^"[A-Za-z0-9_-]{27}"$/) });
      const again = await http(api.url, 'GET', path, { key: acme.key });
      expect(again.headers.get('etag')).toBe(tag);

      for (const ifNoneMatch of [tag, `W/${tag}`, `"other", ${tag}`, '*']) {
        const cached = await http(api.url, 'GET', path, {
          key: acme.key,
          headers: { 'if-none-match': ifNoneMatch },
        });
        expect({ path, ifNoneMatch, status: cached.status, body: cached.text }).toEqual({
          path,
          ifNoneMatch,
          status: 304,
          body: '',
        });
        expect(cached.headers.get('etag')).toBe(tag);
      }
      const stale = await http(api.url, 'GET', path, {
        key: acme.key,
        headers: { 'if-none-match': '"old"' },
      });
      expect(stale.status).toBe(200);
      expect(stale.text).toBe(first.text);
    }

    // A change makes a new tag: the old one gets the new body.
    const before = (await http(api.url, 'GET', one, { key: acme.key })).headers.get('etag')!;
    await http(api.url, 'PATCH', one, { key: acme.key, body: { capacity: 6 } });
    const after = await http(api.url, 'GET', one, { key: acme.key, headers: { 'if-none-match': before } });
    expect(after.status).toBe(200);
    expect(after.body.warehouse.capacity).toBe(6);
    expect(after.headers.get('etag')).not.toBe(before);

    // Writes and errors carry no tag, and If-None-Match never turns a write into a 304.
    const write = await http(api.url, 'PATCH', one, {
      key: acme.key,
      body: { capacity: 6 },
      headers: { 'if-none-match': '*' },
    });
    expect(write.status).toBe(200);
    expect(write.headers.get('etag')).toBeNull();
    const missing = await http(api.url, 'GET', `${WAREHOUSES}/00000000-0000-4000-8000-000000000000`, {
      key: acme.key,
      headers: { 'if-none-match': '*' },
    });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('etag')).toBeNull();
  });
});
