import { createHash } from 'node:crypto';
import { API_KEY_PREFIX, generateApiKey } from '@wharf/accounts';
import { DataSource } from 'typeorm';
import { createCompany, TestCompany } from './support/accounts';
import { eventually, http, HttpResult } from './support/http';
import { startApi, TestApi } from './support/test-app';

const PROTECTED = '/int/v1/locations';
const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

function expectErrorFormat(res: HttpResult, status: number) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(Object.keys(res.body)).toEqual(['errors']);
  expect(res.body.errors.length).toBeGreaterThanOrEqual(1);
  for (const error of res.body.errors) {
    expect(error).toEqual(
      expect.objectContaining({
        status: String(status),
        code: expect.any(String),
        title: expect.any(String),
        detail: expect.any(String),
      }),
    );
  }
}

function expectUnauthorized(res: HttpResult) {
  expectErrorFormat(res, 401);
  expect(res.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
}

/** The same key with one character of its random body changed, so only the checksum can tell. */
function typo(key: string): string {
  const i = API_KEY_PREFIX.length + 7;
  const replacement = key[i] === 'x' ? 'y' : 'x';
  return key.slice(0, i) + replacement + key.slice(i + 1);
}

/** Waits, when needed, so that the next few requests fall into one fixed rate-limit minute. */
async function awayFromMinuteBoundary(marginMs = 5_000) {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 60_000 - marginMs) await new Promise((r) => setTimeout(r, 60_000 - intoMinute + 50));
}

describe('auth: API keys', () => {
  let api: TestApi;
  let acme: TestCompany;
  let globex: TestCompany;
  let db: DataSource;

  beforeAll(async () => {
    api = await startApi();
    acme = await createCompany(api, 'Acme');
    globex = await createCompany(api, 'Globex');
    db = api.app.get(DataSource);
  });
  afterAll(() => api.close());

  describe('401 in the error format with WWW-Authenticate: Bearer', () => {
    it('without an Authorization header', async () => {
      expectUnauthorized(await http(api.url, 'GET', PROTECTED));
    });

    it.each([
      ['a non-Bearer scheme', (key: string) => `Basic ${Buffer.from(`u:${key}`).toString('base64')}`],
      ['an empty Bearer', () => 'Bearer '],
      ['garbage', () => 'Bearer not-a-key'],
      ['the wrong prefix', (key: string) => `Bearer ${key.replace(API_KEY_PREFIX, 'wharf_test_')}`],
      ['a truncated key', (key: string) => `Bearer ${key.slice(0, -1)}`],
      ['a key with extra characters', (key: string) => `Bearer ${key}x`],
    ])('with a malformed key: %s', async (_label, header) => {
      expectUnauthorized(
        await http(api.url, 'GET', PROTECTED, { headers: { authorization: header(acme.key) } }),
      );
    });

    it('with a key whose checksum does not match (one character changed)', async () => {
      const bad = typo(acme.key);
      expect(bad).not.toBe(acme.key);
      expect(bad).toHaveLength(acme.key.length);
      expectUnauthorized(await http(api.url, 'GET', PROTECTED, { key: bad }));
    });

    it('with a well-formed key that was never issued', async () => {
      expectUnauthorized(await http(api.url, 'GET', PROTECTED, { key: generateApiKey() }));
    });

    it('with a key revoked through DELETE /int/v1/api-keys/:uuid, at once', async () => {
      const created = await http(api.url, 'POST', '/int/v1/api-keys', {
        key: acme.key,
        body: { api_key: { name: 'to revoke' } },
      });
      expect(created.status).toBe(201);
      const { key, uuid } = created.body.api_key;
      // Used (and so cached by the api) before it is revoked: revocation must still win at once.
      expect((await http(api.url, 'GET', PROTECTED, { key })).status).toBe(200);

      const revoked = await http(api.url, 'DELETE', `/int/v1/api-keys/${uuid}`, { key: acme.key });
      expect(revoked.status).toBe(200);
      expect(revoked.body.api_key).toMatchObject({ uuid, revoked_at: expect.any(String) });

      expectUnauthorized(await http(api.url, 'GET', PROTECTED, { key }));
      const [row] = await db.query('SELECT revoked_at FROM api_keys WHERE uuid = $1', [uuid]);
      expect(row.revoked_at).toBeInstanceOf(Date);
      // The company's other key is untouched.
      expect((await http(api.url, 'GET', PROTECTED, { key: acme.key })).status).toBe(200);
    });

    it('on every int/v1 route, including key management and extension resources', async () => {
      for (const path of ['/int/v1/api-keys', '/inventory/int/v1/warehouses', `${PROTECTED}/x`]) {
        expectUnauthorized(await http(api.url, 'GET', path));
      }
      expectUnauthorized(await http(api.url, 'POST', '/int/v1/api-keys', { body: { name: 'x' } }));
      expectUnauthorized(await http(api.url, 'POST', PROTECTED, { body: { name: 'x' } }));
    });
  });

  it('a valid key is 200 and sees its company', async () => {
    const res = await http(api.url, 'GET', PROTECTED, { key: acme.key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ locations: [], meta: { total: 0 } });
    const lower = await http(api.url, 'GET', PROTECTED, {
      headers: { authorization: `bearer ${acme.key}` },
    });
    expect(lower.status).toBe(200);
  });

  it('/health stays open', async () => {
    const res = await http(api.url, 'GET', '/health');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('ok');
    // An invalid key on an open route is not a reason to refuse it.
    expect((await http(api.url, 'GET', '/health', { key: generateApiKey() })).status).toBe(200);
  });

  describe('storage', () => {
    it('the api_keys table holds only the SHA-256 hex of each key, never the key', async () => {
      const created = await http(api.url, 'POST', '/int/v1/api-keys', { key: acme.key, body: {} });
      expect(created.status).toBe(201);
      const keys = [acme.key, globex.key, created.body.api_key.key as string];

      const rows: Record<string, unknown>[] = await db.query('SELECT * FROM api_keys');
      const dump = JSON.stringify(rows);
      for (const key of keys) {
        const body = key.slice(API_KEY_PREFIX.length);
        expect(dump).not.toContain(key);
        expect(dump).not.toContain(body);
        // Not even most of it (last_four is the only part kept).
        expect(dump).not.toContain(body.slice(0, -4));
        const row = rows.find((r) => r.key_hash === sha256(key));
        expect(row).toBeDefined();
        expect(row!.key_hash).toMatch(/^[0-9a-f]{64}$/);
        expect(row!.prefix).toBe(API_KEY_PREFIX);
        expect(row!.last_four).toBe(key.slice(-4));
        for (const [column, value] of Object.entries(row!)) {
          if (typeof value === 'string') expect({ column, value }).not.toEqual({ column, value: key });
        }
      }
    });
  });

  describe('key management routes', () => {
    it('GET /int/v1/api-keys lists the company’s keys with prefix + last four only', async () => {
      const res = await http(api.url, 'GET', '/int/v1/api-keys', { key: globex.key });
      expect(res.status).toBe(200);
      expect(res.body.api_keys).toHaveLength(1);
      const [listed] = res.body.api_keys;
      expect(listed).toMatchObject({
        uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
        prefix: API_KEY_PREFIX,
        last_four: globex.key.slice(-4),
        revoked_at: null,
      });
      // `id` repeats the uuid (never the internal integer), as on every record.
      expect(listed.id).toBe(listed.uuid);
      for (const field of ['key', 'key_hash', 'hash', 'secret', 'api_key'])
        expect(listed).not.toHaveProperty(field);
      expect(res.text).not.toContain(globex.key);
      expect(res.text).not.toContain(sha256(globex.key));
      expect(res.text).not.toContain(globex.key.slice(API_KEY_PREFIX.length, -4));
      // Only the caller's company: none of Acme's keys.
      const acmeKeys: { uuid: string }[] = await db.query(
        'SELECT uuid FROM api_keys WHERE company_uuid = $1',
        [acme.uuid],
      );
      for (const { uuid } of acmeKeys) expect(res.text).not.toContain(uuid);
    });

    it('POST /int/v1/api-keys creates a named key that works at once and is shown only once', async () => {
      const created = await http(api.url, 'POST', '/int/v1/api-keys', {
        key: globex.key,
        body: { api_key: { name: 'ci' } },
      });
      expect(created.status).toBe(201);
      const { key, uuid } = created.body.api_key;
      expect(created.body.api_key).toMatchObject({
        uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
        name: 'ci',
        prefix: API_KEY_PREFIX,
        last_four: String(key).slice(-4),
      });
      expect(key).toMatch(new RegExp(`^${API_KEY_PREFIX}[0-9A-Za-z]{36}$`));
      expect(created.body.api_key).not.toHaveProperty('key_hash');

      const use = await http(api.url, 'GET', PROTECTED, { key });
      expect(use.status).toBe(200);

      const list = await http(api.url, 'GET', '/int/v1/api-keys', { key });
      expect(list.status).toBe(200);
      expect(list.body.api_keys.map((k: { uuid: string }) => k.uuid)).toContain(uuid);
      expect(list.text).not.toContain(key);
      expect(list.body.api_keys.find((k: { uuid: string }) => k.uuid === uuid)).toMatchObject({
        name: 'ci',
        last_four: key.slice(-4),
      });
    });

    it('POST /int/v1/api-keys validates the body (422)', async () => {
      const res = await http(api.url, 'POST', '/int/v1/api-keys', {
        key: globex.key,
        body: { api_key: { name: 42 } },
      });
      expectErrorFormat(res, 422);
      const unknown = await http(api.url, 'POST', '/int/v1/api-keys', {
        key: globex.key,
        body: { name: 'x', key_hash: 'a'.repeat(64) },
      });
      expectErrorFormat(unknown, 422);
      for (const body of [{ api_key: 'x' }, [1], 'x']) {
        const res = await http(api.url, 'POST', '/int/v1/api-keys', { key: globex.key, body });
        expectErrorFormat(res, 422);
        expect(res.body.errors).toEqual([
          expect.objectContaining({
            source: { pointer: '/data' },
            detail: expect.stringMatching(/object/),
          }),
        ]);
      }
    });

    it('POST /int/v1/api-keys without a body creates an unnamed key', async () => {
      const res = await http(api.url, 'POST', '/int/v1/api-keys', { key: globex.key });
      expect(res.status).toBe(201);
      expect(res.body.api_key).toMatchObject({ name: null, key: expect.stringMatching(/^wharf_live_/) });
    });

    it('a company cannot revoke another company’s key (404) and that key keeps working', async () => {
      const [acmeKey] = await db.query('SELECT uuid FROM api_keys WHERE key_hash = $1', [sha256(acme.key)]);
      const res = await http(api.url, 'DELETE', `/int/v1/api-keys/${acmeKey.uuid}`, { key: globex.key });
      expectErrorFormat(res, 404);
      const [row] = await db.query('SELECT revoked_at FROM api_keys WHERE uuid = $1', [acmeKey.uuid]);
      expect(row.revoked_at).toBeNull();
      expect((await http(api.url, 'GET', PROTECTED, { key: acme.key })).status).toBe(200);
      expectErrorFormat(
        await http(api.url, 'DELETE', '/int/v1/api-keys/not-a-uuid', { key: globex.key }),
        404,
      );
    });
  });

  it('records last_used_at after a key is used', async () => {
    const created = await http(api.url, 'POST', '/int/v1/api-keys', {
      key: acme.key,
      body: { name: 'fresh' },
    });
    const { key, uuid } = created.body.api_key;
    const before = await db.query('SELECT last_used_at FROM api_keys WHERE uuid = $1', [uuid]);
    expect(before[0].last_used_at).toBeNull();
    const startedAt = Date.now();
    expect((await http(api.url, 'GET', PROTECTED, { key })).status).toBe(200);
    const usedAt = await eventually(async () => {
      const [row] = await db.query('SELECT last_used_at FROM api_keys WHERE uuid = $1', [uuid]);
      return (row.last_used_at as Date | null) ?? undefined;
    });
    expect(usedAt.getTime()).toBeGreaterThanOrEqual(startedAt - 1_000);
    expect(usedAt.getTime()).toBeLessThanOrEqual(Date.now() + 1_000);
    const listed = await http(api.url, 'GET', '/int/v1/api-keys', { key });
    expect(listed.body.api_keys.find((k: { uuid: string }) => k.uuid === uuid).last_used_at).toBe(
      usedAt.toISOString(),
    );
  });

  it('does not write last_used_at on every request (at most once a minute per key)', async () => {
    const created = await http(api.url, 'POST', '/int/v1/api-keys', { key: acme.key, body: {} });
    const { key, uuid } = created.body.api_key;
    const lastUsed = async () =>
      (await db.query('SELECT last_used_at FROM api_keys WHERE uuid = $1', [uuid]))[0].last_used_at as
        Date | undefined;
    expect((await http(api.url, 'GET', PROTECTED, { key })).status).toBe(200);
    const first = await eventually(lastUsed);
    // Past the 5 s authentication cache, so the key is looked up in the database again.
    await new Promise((resolve) => setTimeout(resolve, 5_500));
    for (let i = 0; i < 3; i++) expect((await http(api.url, 'GET', PROTECTED, { key })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await lastUsed())?.getTime()).toBe(first.getTime());
  }, 20_000);
});

describe('auth: rate limit per API key', () => {
  let api: TestApi;
  let acme: TestCompany;
  let globex: TestCompany;

  beforeAll(async () => {
    api = await startApi({ env: { RATE_LIMIT_PER_MINUTE: '3' } });
    acme = await createCompany(api, 'Acme');
    globex = await createCompany(api, 'Globex');
  });
  afterAll(() => api.close());

  it('the 4th request in a minute is 429 with Retry-After in the error format; other keys are unaffected', async () => {
    await awayFromMinuteBoundary();
    for (let i = 0; i < 3; i++) {
      const ok = await http(api.url, 'GET', PROTECTED, { key: acme.key });
      expect(ok.status).toBe(200);
    }
    const limited = await http(api.url, 'GET', PROTECTED, { key: acme.key });
    expectErrorFormat(limited, 429);
    const retryAfter = limited.headers.get('retry-after');
    expect(retryAfter).toMatch(/^\d+$/);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(retryAfter)).toBeLessThanOrEqual(60);

    // Still limited on a write, and the write did not happen.
    const write = await http(api.url, 'POST', PROTECTED, { key: acme.key, body: { name: 'Nope' } });
    expectErrorFormat(write, 429);
    const [{ n }] = await api.app
      .get(DataSource)
      .query('SELECT count(*)::int AS n FROM locations WHERE company_uuid = $1', [acme.uuid]);
    expect(n).toBe(0);

    // Another key (of another company) has its own budget.
    expect((await http(api.url, 'GET', PROTECTED, { key: globex.key })).status).toBe(200);
    // Open routes are not limited.
    expect((await http(api.url, 'GET', '/health')).status).toBe(200);
  });

  it('unauthenticated requests are 401, not 429', async () => {
    expectUnauthorized(await http(api.url, 'GET', PROTECTED));
  });
});
