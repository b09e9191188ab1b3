import { Writable } from 'node:stream';
import { AccountsService } from '@wharf/accounts';
import { DataSource } from 'typeorm';
import { TestCompany, createCompany } from './support/accounts';
import { HttpResult, http } from './support/http';
import { Receiver } from './support/receiver';
import { TestApi, startApi } from './support/test-app';

const NO_SUCH = '00000000-0000-4000-8000-000000000000';

/** The portal cookie of an exchange's Set-Cookie, as a Cookie header. */
function cookieOf(res: HttpResult): string {
  const set = res.headers.get('set-cookie') ?? '';
  const match = /^(wharf_portal=[^;]+)/.exec(set);
  if (!match) throw new Error(`no portal cookie in ${res.status} ${res.text}`);
  return match[1];
}

describe('portal sessions: a company’s console opened from a link, bound to that company', () => {
  let api: TestApi;
  let receiver: Receiver;
  let acme: TestCompany;
  let globex: TestCompany;
  const logs: string[] = [];
  const tokens: string[] = [];

  beforeAll(async () => {
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logs.push(chunk.toString());
        done();
      },
    });
    api = await startApi({ env: { LOG_LEVEL: 'debug' }, logDestination: destination });
    receiver = await new Receiver().start();
    acme = await createCompany(api, 'Portal Acme');
    globex = await createCompany(api, 'Portal Globex');
  });
  afterAll(async () => {
    await receiver?.stop();
    await api?.close();
  });

  async function open(key: string, body: unknown = {}) {
    const res = await http(api.url, 'POST', '/int/v1/portal-sessions', { key, body });
    if (res.status === 201) tokens.push(res.body.portal_session.token);
    return res;
  }

  async function signIn(key: string, body: unknown = {}): Promise<{ cookie: string; uuid: string }> {
    const opened = await open(key, body);
    expect(opened.status).toBe(201);
    const exchanged = await http(api.url, 'POST', '/int/v1/portal-sessions/exchange', {
      body: { token: opened.body.portal_session.token },
    });
    expect(exchanged.status).toBe(200);
    return { cookie: cookieOf(exchanged), uuid: opened.body.portal_session.uuid };
  }

  /** A call with the session's cookie (and the header the console sends with writes, unless `bare`). */
  const as = (cookie: string, method: string, path: string, body?: unknown, bare = false) =>
    http(api.url, method, path, {
      body,
      headers: bare ? { cookie } : { cookie, 'x-wharf-portal': '1' },
    });

  it('a company key opens its own portal; the link’s token is traded once for an HttpOnly, partitioned cookie', async () => {
    const opened = await open(acme.key, { portal_session: { return_url: 'https://app.example.com/back' } });
    expect(opened.status).toBe(201);
    const session = opened.body.portal_session;
    expect(session).toMatchObject({
      company_uuid: acme.uuid,
      read_only: false,
      features: ['activity', 'catalog'],
      return_url: 'https://app.example.com/back',
      exchanged_at: null,
    });
    expect(session.url).toBe(`${api.url}/console/#portal_token=${session.token}`);
    const lifetime = new Date(session.expires_at).getTime() - Date.now();
    expect(lifetime).toBeGreaterThan(3500_000);
    expect(lifetime).toBeLessThanOrEqual(3600_000);
    expect(opened.headers.get('location')).toBe(`/int/v1/portal-sessions/${session.uuid}`);
    const read = await http(api.url, 'GET', `/int/v1/portal-sessions/${session.uuid}`, { key: acme.key });
    expect(read.status).toBe(200);
    expect(read.body.portal_session.token).toBeUndefined();
    expect(read.text).not.toContain(session.token);

    const exchanged = await http(api.url, 'POST', '/int/v1/portal-sessions/exchange', {
      body: { token: session.token },
    });
    expect(exchanged.status).toBe(200);
    const setCookie = exchanged.headers.get('set-cookie') ?? '';
    const attributes = setCookie.split('; ').slice(1);
    expect(attributes.filter((a) => !a.startsWith('Max-Age=')).sort()).toEqual([
      'HttpOnly',
      'Partitioned',
      'Path=/',
      'SameSite=None',
      'Secure',
    ]);
    expect(attributes.find((a) => a.startsWith('Max-Age='))).toMatch(/^Max-Age=3[56]\d\d$/);
    expect(exchanged.text).not.toContain(session.token);
    const again = await http(api.url, 'POST', '/int/v1/portal-sessions/exchange', {
      body: { token: session.token },
    });
    expect(again.status).toBe(401);

    const cookie = cookieOf(exchanged);
    const who = await as(cookie, 'GET', '/int/v1/session');
    expect(who.status).toBe(200);
    expect(who.body.session).toMatchObject({
      kind: 'portal',
      company: { uuid: acme.uuid, name: 'Portal Acme' },
      read_only: false,
      return_url: 'https://app.example.com/back',
    });
    expect((await as(cookie, 'GET', '/int/v1/webhook-endpoints')).status).toBe(200);
    const created = await as(cookie, 'POST', '/int/v1/webhook-endpoints', {
      webhook_endpoint: { url: `${receiver.url}/portal`, events: ['*'] },
    });
    expect(created.status).toBe(201);
  });

  it('a company key opens no other company’s portal; a platform key opens any; bad fields are 422s', async () => {
    const refused = await open(acme.key, { company_uuid: globex.uuid });
    expect(refused.status).toBe(403);
    expect(refused.body.errors[0].detail).toMatch(/own company/);

    const platform = await api.app.get(AccountsService).createApiKey(acme.uuid, 'platform', true);
    const forGlobex = await open(platform.key, { company_uuid: globex.uuid, read_only: true });
    expect(forGlobex.status).toBe(201);
    expect(forGlobex.body.portal_session).toMatchObject({ company_uuid: globex.uuid, read_only: true });
    // The opener's company sees and revokes it; a third company does not see it.
    const third = await createCompany(api, 'Portal Third');
    const uuid = forGlobex.body.portal_session.uuid;
    expect((await http(api.url, 'GET', `/int/v1/portal-sessions/${uuid}`, { key: acme.key })).status).toBe(
      200,
    );
    expect((await http(api.url, 'GET', `/int/v1/portal-sessions/${uuid}`, { key: globex.key })).status).toBe(
      200,
    );
    expect((await http(api.url, 'GET', `/int/v1/portal-sessions/${uuid}`, { key: third.key })).status).toBe(
      404,
    );
    expect(
      (await http(api.url, 'DELETE', `/int/v1/portal-sessions/${uuid}`, { key: third.key })).status,
    ).toBe(404);

    const unknown = await open(platform.key, { company_uuid: NO_SUCH });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors[0].source.pointer).toBe('/data/attributes/company_uuid');
    for (const [body, pointer] of [
      [{ expires_in: 86_401 }, 'expires_in'],
      [{ expires_in: 10 }, 'expires_in'],
      [{ return_url: 'javascript:alert(1)' }, 'return_url'],
      [{ features: ['api_keys'] }, 'features'],
      [{ read_only: 'yes' }, 'read_only'],
      [{ colour: 'red' }, 'colour'],
    ] as const) {
      const res = await open(acme.key, body);
      expect({ body, status: res.status, pointer: res.body.errors?.[0]?.source?.pointer }).toEqual({
        body,
        status: 422,
        pointer: `/data/attributes/${pointer}`,
      });
    }
    const sessions = await api.app
      .get(DataSource)
      .query('SELECT count(*)::int AS n FROM portal_sessions WHERE company_uuid = $1', [NO_SUCH]);
    expect(sessions[0].n).toBe(0);
  });

  it('a portal session makes no API keys and no portal sessions (403), and its cookie is useless cross-site', async () => {
    const { cookie } = await signIn(acme.key);
    const db = api.app.get(DataSource);
    const count = async (table: string) =>
      (await db.query(`SELECT count(*)::int AS n FROM ${table} WHERE company_uuid = $1`, [acme.uuid]))[0].n;
    const [keys, sessions] = [await count('api_keys'), await count('portal_sessions')];
    for (const [method, path, body] of [
      ['POST', '/int/v1/api-keys', { api_key: { name: 'from a portal' } }],
      ['GET', '/int/v1/api-keys', undefined],
      ['DELETE', `/int/v1/api-keys/${NO_SUCH}`, undefined],
      ['POST', '/int/v1/portal-sessions', {}],
      ['GET', `/int/v1/portal-sessions/${NO_SUCH}`, undefined],
    ] as const) {
      const res = await as(cookie, method, path, body);
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 403 });
    }
    expect([await count('api_keys'), await count('portal_sessions')]).toEqual([keys, sessions]);
    // A write without the console's header (what a cross-site form could send) is refused and changes nothing.
    const before = (await as(cookie, 'GET', '/int/v1/webhook-endpoints')).body.meta.total;
    const forged = await as(
      cookie,
      'POST',
      '/int/v1/webhook-endpoints',
      { webhook_endpoint: { url: `${receiver.url}/forged`, events: ['*'] } },
      true,
    );
    expect(forged.status).toBe(403);
    expect((await as(cookie, 'GET', '/int/v1/webhook-endpoints')).body.meta.total).toBe(before);
  });

  it('a read-only session reads, and every write route of the OpenAPI document answers it 403', async () => {
    const endpoint = (
      await http(api.url, 'POST', '/int/v1/webhook-endpoints', {
        key: acme.key,
        body: { webhook_endpoint: { url: `${receiver.url}/read-only`, events: ['*'] } },
      })
    ).body.webhook_endpoint;
    const { cookie } = await signIn(acme.key, { read_only: true });
    expect((await as(cookie, 'GET', `/int/v1/webhook-endpoints/${endpoint.uuid}`)).status).toBe(200);
    expect((await as(cookie, 'GET', '/int/v1/session')).body.session.read_only).toBe(true);

    const document = (await http(api.url, 'GET', '/docs-json')).body;
    const writes: string[] = [];
    for (const [path, item] of Object.entries<Record<string, any>>(document.paths))
      for (const [method, operation] of Object.entries<Record<string, any>>(item)) {
        if (method === 'get' || operation.security?.length === 0) continue;
        const url = path.replace(/\{(\w+)\}/g, (_, name: string) =>
          name === 'uuid' ? endpoint.uuid : NO_SUCH,
        );
        const res = await as(cookie, method.toUpperCase(), url, {});
        writes.push(`${method.toUpperCase()} ${path} → ${res.status}`);
      }
    const filterTest = 'POST /int/v1/webhook-endpoints/{uuid}/filter-test';
    // The one POST that only reads passes the check (and answers as for any caller: no event given).
    expect(writes.filter((line) => !line.endsWith('403'))).toEqual([`${filterTest} → 422`]);
    expect(writes.length).toBeGreaterThan(30);
    const after = await http(api.url, 'GET', `/int/v1/webhook-endpoints/${endpoint.uuid}`, { key: acme.key });
    expect(after.body.webhook_endpoint).toMatchObject({ status: 'enabled', url: endpoint.url });
  });

  it('a session of one company reads nothing of another (404 by uuid, absent from lists)', async () => {
    const theirs = (
      await http(api.url, 'POST', '/int/v1/webhook-endpoints', {
        key: globex.key,
        body: { webhook_endpoint: { url: `${receiver.url}/globex`, events: ['*'] } },
      })
    ).body.webhook_endpoint;
    const { cookie } = await signIn(acme.key);
    expect((await as(cookie, 'GET', `/int/v1/webhook-endpoints/${theirs.uuid}`)).status).toBe(404);
    expect((await as(cookie, 'POST', `/int/v1/webhook-endpoints/${theirs.uuid}/disable`)).status).toBe(404);
    const listed = await as(cookie, 'GET', '/int/v1/webhook-endpoints?limit=100');
    expect(listed.body.webhook_endpoints.length).toBeGreaterThan(0);
    expect(listed.body.webhook_endpoints.map((e: { uuid: string }) => e.uuid)).not.toContain(theirs.uuid);
    expect(
      (await http(api.url, 'GET', `/int/v1/webhook-endpoints/${theirs.uuid}`, { key: globex.key })).body
        .webhook_endpoint.status,
    ).toBe('enabled');
  });

  it('a revoked or expired session is refused (401), and so is its link', async () => {
    const revoked = await signIn(acme.key);
    expect((await as(revoked.cookie, 'GET', '/int/v1/session')).status).toBe(200);
    const res = await http(api.url, 'DELETE', `/int/v1/portal-sessions/${revoked.uuid}`, { key: acme.key });
    expect(res.status).toBe(200);
    expect(res.body.portal_session.revoked_at).not.toBeNull();
    expect((await as(revoked.cookie, 'GET', '/int/v1/session')).status).toBe(401);

    const expired = await signIn(acme.key);
    await api.app
      .get(DataSource)
      .query(`UPDATE portal_sessions SET expires_at = now() - interval '1 second' WHERE uuid = $1`, [
        expired.uuid,
      ]);
    const refused = await as(expired.cookie, 'GET', '/int/v1/webhook-endpoints');
    expect(refused.status).toBe(401);
    expect(refused.body.errors[0].detail).toMatch(/expired or was revoked/);

    const unused = await open(acme.key);
    await http(api.url, 'DELETE', `/int/v1/portal-sessions/${unused.body.portal_session.uuid}`, {
      key: acme.key,
    });
    const late = await http(api.url, 'POST', '/int/v1/portal-sessions/exchange', {
      body: { token: unused.body.portal_session.token },
    });
    expect(late.status).toBe(401);
  });

  it('never writes a token or a session cookie to the logs or the request log', async () => {
    const { cookie } = await signIn(acme.key);
    const endpoint = (
      await as(cookie, 'POST', '/int/v1/webhook-endpoints', {
        webhook_endpoint: { url: `${receiver.url}/logged`, events: ['*'] },
      })
    ).body.webhook_endpoint;
    expect((await as(cookie, 'POST', `/int/v1/webhook-endpoints/${endpoint.uuid}/test`, {})).status).toBe(
      200,
    );
    // A token sent where it does not belong (a query parameter) is masked in the request's log line too.
    await http(api.url, 'GET', `/int/v1/session?token=${tokens[0]}`, { headers: { cookie } });

    const text = logs.join('');
    // The log has a line per request (LOG_LEVEL=debug): the exchanges and the calls made with the cookie.
    expect(text).toContain('POST /int/v1/portal-sessions/exchange 200');
    expect(text).toContain(`POST /int/v1/webhook-endpoints/${endpoint.uuid}/test 200`);
    expect(text).toContain('GET /int/v1/session?token=[redacted] 200');
    expect(tokens.length).toBeGreaterThan(5);
    for (const token of tokens) expect(text).not.toContain(token.slice('wharf_portal_'.length));
    expect(text).not.toContain(cookie.split('=')[1]);

    const rows = await api.app.get(DataSource).query(
      `SELECT count(*) FILTER (WHERE request_body LIKE '%' || t || '%' OR request_headers::text LIKE '%' || t || '%'
         OR url LIKE '%' || t || '%')::int AS leaked, count(DISTINCT l.uuid)::int AS n
       FROM webhook_request_logs l CROSS JOIN unnest($1::text[]) t WHERE l.company_uuid = $2`,
      [[...tokens, cookie.split('=')[1]], acme.uuid],
    );
    expect(rows[0]).toEqual({ leaked: 0, n: 1 });
  });
});
