import { INestApplicationContext } from '@nestjs/common';
import { TestCompany, createCompany } from './support/accounts';
import { eventually, http } from './support/http';
import { Receiver } from './support/receiver';
import { TestApi, startApi } from './support/test-app';
import { FAST_WEBHOOKS, deliveredCount, sql, warehouse } from './support/webhooks';
import { startWorker } from './support/worker';

const W = '/inventory/int/v1/warehouses';
const E = '/int/v1/webhook-endpoints';

describe('webhooks: static headers and auth per endpoint', () => {
  let api: TestApi;
  let workers: INestApplicationContext[];
  let receiver: Receiver;
  /** The local OAuth2 token server: answers client credentials with tok-1, tok-2, … */
  let tokens: Receiver;
  let issued = 0;
  const revoked = new Set<string>();

  beforeAll(async () => {
    api = await startApi({ env: { ...FAST_WEBHOOKS, RATE_LIMIT_PER_MINUTE: '100000' } });
    // Two workers, each with its own token cache in memory: only Redis is shared.
    workers = [await startWorker(api.config), await startWorker(api.config)];
    receiver = await new Receiver().start();
    receiver.respond = (request) =>
      revoked.has(String(request.headers.authorization)) ? { status: 401 } : { status: 200 };
    tokens = await new Receiver().start();
    tokens.respond = (request) => {
      const basic = Buffer.from('client-1:s3cret-client').toString('base64');
      if (
        request.headers.authorization !== `Basic ${basic}` ||
        !request.body.includes('grant_type=client_credentials')
      )
        return { status: 400, body: '{"error":"invalid_client"}' };
      issued++;
      return {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ access_token: `tok-${issued}`, token_type: 'Bearer', expires_in: 3600 }),
      };
    };
  });
  afterAll(async () => {
    for (const worker of workers) await worker.close();
    await receiver.stop();
    await tokens.stop();
    await api.close();
  });

  async function endpoint(company: TestCompany, path: string, extra: Record<string, unknown>) {
    const created = await http(api.url, 'POST', E, {
      key: company.key,
      body: { webhook_endpoint: { url: `${receiver.url}${path}`, events: ['warehouse.created'], ...extra } },
    });
    expect(created.status).toBe(201);
    return created;
  }

  it('the receiver sees the static headers and the Authorization of basic and bearer; responses and the log hide them', async () => {
    const acme = await createCompany(api, 'Headers');
    const basic = await endpoint(acme, '/basic', {
      headers: { 'X-Api-Key': 'k-123-secret', 'X-Tenant': 'acme' },
      auth: { type: 'basic', username: 'wharf', password: 'p4ss-word' },
    });
    const bearer = await endpoint(acme, '/bearer', { auth: { type: 'bearer', token: 'bearer-tok-9' } });
    for (const created of [basic, bearer])
      expect(created.text).not.toMatch(/k-123-secret|p4ss-word|bearer-tok-9/);
    expect(basic.body.webhook_endpoint.headers).toEqual({
      'X-Api-Key': '[redacted]',
      'X-Tenant': '[redacted]',
    });
    expect(basic.body.webhook_endpoint.auth).toEqual({ type: 'basic', username: 'wharf' });
    expect(bearer.body.webhook_endpoint.auth).toEqual({ type: 'bearer' });

    await http(api.url, 'POST', W, { key: acme.key, body: warehouse('Headers') });
    await eventually(
      async () => receiver.requests.filter((r) => ['/basic', '/bearer'].includes(r.path)).length === 2,
    );
    const at = (path: string) => receiver.requests.find((r) => r.path === path)!.headers;
    expect(at('/basic')['x-api-key']).toBe('k-123-secret');
    expect(at('/basic')['x-tenant']).toBe('acme');
    expect(at('/basic').authorization).toBe(`Basic ${Buffer.from('wharf:p4ss-word').toString('base64')}`);
    expect(at('/basic')['webhook-id']).toMatch(/^evt_/);
    expect(at('/bearer').authorization).toBe('Bearer bearer-tok-9');

    const uuid = basic.body.webhook_endpoint.uuid as string;
    await eventually(async () => (await deliveredCount(api, uuid)) === 1);
    const [log] = await sql(
      api,
      'SELECT request_headers FROM webhook_request_logs WHERE webhook_endpoint_uuid = $1',
      [uuid],
    );
    expect(log.request_headers).toMatchObject({
      'X-Api-Key': '[redacted]',
      'X-Tenant': '[redacted]',
      authorization: '[redacted]',
    });
    for (const path of [`${E}/${uuid}`, `${E}`, `/int/v1/webhook-request-logs`]) {
      const read = await http(api.url, 'GET', path, { key: acme.key });
      expect(read.status).toBe(200);
      expect(read.text).not.toMatch(/k-123-secret|p4ss-word|bearer-tok-9|d2hhcmY6cDRzcy13b3Jk/);
    }
    const [row] = await sql(
      api,
      'SELECT headers_sealed, auth_sealed FROM webhook_endpoints WHERE uuid = $1',
      [uuid],
    );
    expect(`${row.headers_sealed}${row.auth_sealed}`).not.toMatch(/k-123-secret|p4ss-word/);
    // The reveal route, like the secret's.
    const revealed = await http(api.url, 'GET', `${E}/${uuid}/headers`, { key: acme.key });
    expect(revealed.body).toEqual({ headers: { 'X-Api-Key': 'k-123-secret', 'X-Tenant': 'acme' } });
  });

  it('refuses reserved header names and bad auth with 422 pointers, changing nothing', async () => {
    const acme = await createCompany(api, 'Reserved');
    for (const name of [
      'webhook-id',
      'Content-Type',
      'Host',
      'user-agent',
      'Transfer-Encoding',
      'Authorization',
    ]) {
      const refused = await http(api.url, 'POST', E, {
        key: acme.key,
        body: { webhook_endpoint: { url: `${receiver.url}/r`, headers: { [name]: 'x' } } },
      });
      expect(refused.status).toBe(422);
      expect(refused.body.errors[0].source.pointer).toBe(`/data/attributes/headers/${name}`);
    }
    const tooMany = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`X-H${i}`, 'v']));
    const many = await http(api.url, 'POST', E, {
      key: acme.key,
      body: { webhook_endpoint: { url: `${receiver.url}/r`, headers: tooMany } },
    });
    expect(many.status).toBe(422);
    const badAuth = await http(api.url, 'POST', E, {
      key: acme.key,
      body: {
        webhook_endpoint: {
          url: `${receiver.url}/r`,
          auth: { type: 'oauth2_client_credentials', client_id: 'x' },
        },
      },
    });
    expect(badAuth.status).toBe(422);
    expect(badAuth.body.errors.map((e: any) => e.source.pointer)).toEqual([
      '/data/attributes/auth/token_url',
      '/data/attributes/auth/client_secret',
    ]);
    const [{ n }] = await sql(
      api,
      'SELECT count(*)::int AS n FROM webhook_endpoints WHERE company_uuid = $1',
      [acme.uuid],
    );
    expect(n).toBe(0);
  });

  it('OAuth2: one token for 50 deliveries across two workers, fetched again once after a 401', async () => {
    const acme = await createCompany(api, 'OAuth2');
    const created = await endpoint(acme, '/oauth', {
      auth: {
        type: 'oauth2_client_credentials',
        token_url: `${tokens.url}/token`,
        client_id: 'client-1',
        client_secret: 's3cret-client',
        scope: 'webhooks',
      },
    });
    expect(created.body.webhook_endpoint.auth).toEqual({
      type: 'oauth2_client_credentials',
      token_url: `${tokens.url}/token`,
      client_id: 'client-1',
      scope: 'webhooks',
    });
    const uuid = created.body.webhook_endpoint.uuid as string;
    for (let i = 0; i < 50; i += 10)
      await Promise.all(
        Array.from({ length: 10 }, (_, j) =>
          http(api.url, 'POST', W, { key: acme.key, body: warehouse(`O${i + j}`) }),
        ),
      );
    await eventually(async () => (await deliveredCount(api, uuid)) === 50, 20_000);
    expect(issued).toBe(1);
    expect(tokens.requests[0].body).toContain('scope=webhooks');
    expect(
      new Set(receiver.requests.filter((r) => r.path === '/oauth').map((r) => r.headers.authorization)),
    ).toEqual(new Set(['Bearer tok-1']));

    // The receiver stops accepting tok-1: the next delivery is refused once, a new token fetched, sent again.
    revoked.add('Bearer tok-1');
    await http(api.url, 'POST', W, { key: acme.key, body: warehouse('After revoke') });
    await eventually(async () => (await deliveredCount(api, uuid)) === 51, 20_000);
    expect(issued).toBe(2);
    const last = receiver.requests.filter((r) => r.path === '/oauth').slice(-2);
    expect(last.map((r) => r.headers.authorization)).toEqual(['Bearer tok-1', 'Bearer tok-2']);
    const logs = await sql(
      api,
      'SELECT request_headers, error FROM webhook_request_logs WHERE webhook_endpoint_uuid = $1',
      [uuid],
    );
    expect(logs.every((l) => l.request_headers.authorization === '[redacted]')).toBe(true);
  });

  it('a token endpoint refusing is the attempt’s error, never the secret', async () => {
    const acme = await createCompany(api, 'OAuth2 refused');
    const created = await endpoint(acme, '/oauth-bad', {
      auth: {
        type: 'oauth2_client_credentials',
        token_url: `${tokens.url}/token`,
        client_id: 'client-1',
        client_secret: 'wrong-secret-xyz',
      },
    });
    await http(api.url, 'POST', W, { key: acme.key, body: warehouse('Refused') });
    const [log] = await eventually(async () => {
      const rows = await sql(
        api,
        'SELECT error, request_headers FROM webhook_request_logs WHERE webhook_endpoint_uuid = $1',
        [created.body.webhook_endpoint.uuid],
      );
      return rows.length ? rows : undefined;
    });
    expect(log.error).toBe('auth: token endpoint answered 400');
    expect(JSON.stringify(log)).not.toMatch(/wrong-secret-xyz/);
    expect(receiver.requests.some((r) => r.path === '/oauth-bad')).toBe(false);
  });

  it('an edit that sends back the redacted values keeps the stored ones; auth without its secret keeps it while the type stays', async () => {
    const acme = await createCompany(api, 'Edit redacted');
    const created = await endpoint(acme, '/edit', {
      headers: { 'X-Api-Key': 'k-keep-1', 'X-Tenant': 'acme' },
      auth: { type: 'basic', username: 'wharf', password: 'p4ss-keep' },
    });
    const uuid = created.body.webhook_endpoint.uuid as string;
    const shown = (await http(api.url, 'GET', `${E}/${uuid}`, { key: acme.key })).body.webhook_endpoint;
    // What the console sends back: the headers as shown with one value changed, the auth without password.
    const edited = await http(api.url, 'PUT', `${E}/${uuid}`, {
      key: acme.key,
      body: {
        webhook_endpoint: {
          headers: { ...shown.headers, 'X-Tenant': 'beta' },
          auth: { ...shown.auth, username: 'wharf-2' },
        },
      },
    });
    expect(edited.status).toBe(200);
    expect(edited.body.webhook_endpoint.headers).toEqual({
      'X-Api-Key': '[redacted]',
      'X-Tenant': '[redacted]',
    });
    expect(edited.body.webhook_endpoint.auth).toEqual({ type: 'basic', username: 'wharf-2' });
    const revealed = await http(api.url, 'GET', `${E}/${uuid}/headers`, { key: acme.key });
    expect(revealed.body).toEqual({ headers: { 'X-Api-Key': 'k-keep-1', 'X-Tenant': 'beta' } });
    // "[redacted]" in a secret field means the same as leaving it out.
    const again = await http(api.url, 'PATCH', `${E}/${uuid}`, {
      key: acme.key,
      body: { auth: { type: 'basic', username: 'wharf-3', password: '[redacted]' } },
    });
    expect(again.status).toBe(200);

    // A delivery carries the kept values.
    await http(api.url, 'POST', W, { key: acme.key, body: warehouse('Edited') });
    const request = await eventually(async () => receiver.requests.find((r) => r.path === '/edit'));
    expect(request.headers['x-api-key']).toBe('k-keep-1');
    expect(request.headers['x-tenant']).toBe('beta');
    expect(request.headers.authorization).toBe(
      `Basic ${Buffer.from('wharf-3:p4ss-keep').toString('base64')}`,
    );

    // Nothing stored to keep: a new header's "[redacted]", a changed type's secret. 422, nothing changes.
    const newHeader = await http(api.url, 'PATCH', `${E}/${uuid}`, {
      key: acme.key,
      body: { headers: { 'X-Api-Key': '[redacted]', 'X-New': '[redacted]' } },
    });
    expect(newHeader.status).toBe(422);
    expect(newHeader.body.errors.map((e: any) => e.source.pointer)).toEqual([
      '/data/attributes/headers/X-New',
    ]);
    const newType = await http(api.url, 'PATCH', `${E}/${uuid}`, {
      key: acme.key,
      body: { auth: { type: 'bearer', token: '[redacted]' } },
    });
    expect(newType.status).toBe(422);
    expect(newType.body.errors.map((e: any) => e.source.pointer)).toEqual(['/data/attributes/auth/token']);
    const noToken = await http(api.url, 'PATCH', `${E}/${uuid}`, {
      key: acme.key,
      body: { auth: { type: 'bearer' } },
    });
    expect(noToken.status).toBe(422);
    const onCreate = await http(api.url, 'POST', E, {
      key: acme.key,
      body: { webhook_endpoint: { url: `${receiver.url}/r`, headers: { 'X-Api-Key': '[redacted]' } } },
    });
    expect(onCreate.status).toBe(422);
    expect(onCreate.body.errors[0].source.pointer).toBe('/data/attributes/headers/X-Api-Key');
    expect((await http(api.url, 'GET', `${E}/${uuid}/headers`, { key: acme.key })).body).toEqual(
      revealed.body,
    );
    const [row] = await sql(api, 'SELECT auth FROM webhook_endpoints WHERE uuid = $1', [uuid]);
    expect(row.auth).toEqual({ type: 'basic', username: 'wharf-3' });
  });

  it('"send test event" and verify go with the endpoint’s headers and auth, OAuth2 included, logged redacted', async () => {
    const acme = await createCompany(api, 'Test send');
    const created = await endpoint(acme, '/test-send', {
      headers: { 'X-Api-Key': 'k-test-7' },
      auth: {
        type: 'oauth2_client_credentials',
        token_url: `${tokens.url}/token`,
        client_id: 'client-1',
        client_secret: 's3cret-client',
      },
    });
    const uuid = created.body.webhook_endpoint.uuid as string;
    const sent = await http(api.url, 'POST', `${E}/${uuid}/test`, { key: acme.key, body: {} });
    expect(sent.status).toBe(200);
    expect(sent.body.webhook_request_log).toMatchObject({
      test: true,
      status: 'successful',
      response_status: 200,
    });
    expect(sent.body.webhook_request_log.request_headers).toMatchObject({
      'X-Api-Key': '[redacted]',
      authorization: '[redacted]',
    });
    expect(sent.text).not.toMatch(/k-test-7|s3cret-client|tok-\d/);
    const request = receiver.requests.filter((r) => r.path === '/test-send').at(-1)!;
    expect(request.headers['x-api-key']).toBe('k-test-7');
    expect(request.headers.authorization).toMatch(/^Bearer tok-\d+$/);

    const challenged = receiver.respond;
    receiver.respond = (r, i) =>
      r.path === '/test-send' ? { status: 200, body: JSON.parse(r.body).challenge ?? '' } : challenged(r, i);
    try {
      const verified = await http(api.url, 'POST', `${E}/${uuid}/verify`, { key: acme.key });
      expect(verified.status).toBe(200);
      expect(verified.body.webhook_endpoint.verified_at).not.toBeNull();
    } finally {
      receiver.respond = challenged;
    }
    const challenge = receiver.requests.filter((r) => r.path === '/test-send').at(-1)!;
    expect(JSON.parse(challenge.body).type).toBe('webhook.verification');
    expect(challenge.headers['x-api-key']).toBe('k-test-7');
    expect(challenge.headers.authorization).toBe(request.headers.authorization);
  });
});
