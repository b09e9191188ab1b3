import { INestApplicationContext } from '@nestjs/common';
import { ApiError, loadConfig } from '@wharf/core';
import { WebhookEndpointsService } from '@wharf/webhooks';
import { createCompany } from './support/accounts';
import { eventually, http } from './support/http';
import { TestApi, startApi } from './support/test-app';
import { FAST_WEBHOOKS, sql, warehouse } from './support/webhooks';
import { startWorker } from './support/worker';

describe('webhooks: target policy with private targets not allowed', () => {
  let api: TestApi;
  let worker: INestApplicationContext;

  beforeAll(async () => {
    api = await startApi({ env: { ...FAST_WEBHOOKS, WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'false' } });
    worker = await startWorker(api.config);
  });
  afterAll(async () => {
    await worker.close();
    await api.close();
  });

  it.each([
    'https://127.0.0.1/hook',
    'https://10.0.0.1/hook',
    'https://169.254.169.254/latest/meta-data',
    'https://[::1]/hook',
    'https://[::ffff:127.0.0.1]/hook',
    'https://0x7f000001/hook',
    'https://2130706433/hook',
    'https://017700000001/hook',
  ])('refuses %s when it is saved (422)', async (url) => {
    const acme = await createCompany(api, 'Policy');
    const error = await api.app
      .get(WebhookEndpointsService)
      .create(acme.uuid, { url, events: ['*'] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).getStatus()).toBe(422);
    expect((error as ApiError).errors[0].source?.pointer).toBe('/data/attributes/url');
    expect(
      await sql(api, 'SELECT 1 FROM webhook_endpoints WHERE company_uuid = $1', [acme.uuid]),
    ).toHaveLength(0);
  });

  it.each([
    'https://localhost./hook',
    'https://LOCALHOST./hook',
    'https://localhost../hook',
    'https://localhost%2e/hook',
    'https://localhost\u3002/hook',
    'https://localhost.localdomain/hook',
    'https://ip6-localhost/hook',
    'https://a.b.localhost/hook',
    'https://[::ffff:0:127.0.0.1]/hook',
    'https://[64:ff9b:1::a00:1]/hook',
    'https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook',
    'https://[2002:c0a8:101::1]/hook',
    'https://[2001:db8::1]/hook',
    'https://metadata.internal/hook',
    'https://printer.local/hook',
    'https://nas.home.arpa/hook',
    'https://intranet/hook',
    'https://example.com\\@127.0.0.1/',
  ])('refuses %s through the API (422 naming the reason) and saves nothing', async (url) => {
    const acme = await createCompany(api, 'Policy');
    const response = await http(api.url, 'POST', '/int/v1/webhook-endpoints', {
      key: acme.key,
      body: { webhook_endpoint: { url } },
    });
    expect(response.status).toBe(422);
    expect(response.body.errors[0].detail).toMatch(
      /The URL is not allowed: (loopback|link-local|private|reserved|teredo|6to4|rfc6052|single-label|malformed|URLs may not)/,
    );
    expect(response.body.errors[0].source.pointer).toMatch(/\/url$/);
    expect(
      await sql(api, 'SELECT 1 FROM webhook_endpoints WHERE company_uuid = $1', [acme.uuid]),
    ).toHaveLength(0);
  });

  it('quotes a host that ends with its root dot, in the URL and in a token URL alike', async () => {
    const acme = await createCompany(api, 'Dotted');
    const response = await http(api.url, 'POST', '/int/v1/webhook-endpoints', {
      key: acme.key,
      body: {
        webhook_endpoint: {
          url: 'https://localhost./x',
          auth: {
            type: 'oauth2_client_credentials',
            token_url: 'https://db.internal./token',
            client_id: 'c',
            client_secret: 's',
          },
        },
      },
    });
    expect(response.status).toBe(422);
    expect(response.body.errors.map((e: { detail: string }) => e.detail)).toEqual([
      'The URL is not allowed: loopback host name "localhost.".',
      'The token URL is not allowed: private-use host name "db.internal.".',
    ]);
    // Other messages that end with a value from the request quote it the same way.
    const field = await http(api.url, 'POST', '/int/v1/webhook-endpoints', {
      key: acme.key,
      body: {
        webhook_endpoint: {
          url: 'https://hooks.example.com/x',
          auth: { type: 'bearer', token: 't', 'ttl.': 1 },
        },
      },
    });
    expect(field.body.errors[0].detail).toBe('auth of type bearer has no field "ttl.".');
    const event = await http(api.url, 'GET', '/int/v1/events/evt_1./routing', { key: acme.key });
    expect([event.status, event.body.errors[0].detail]).toEqual([404, 'No stored event "evt_1.".']);
    const route = await http(api.url, 'GET', '/int/v1/webhook-endpoints.', { key: acme.key });
    expect([route.status, route.body.errors[0].detail]).toEqual([
      404,
      'No route GET "/int/v1/webhook-endpoints.".',
    ]);
    expect(
      await sql(api, 'SELECT 1 FROM webhook_endpoints WHERE company_uuid = $1', [acme.uuid]),
    ).toHaveLength(0);
  });

  it('refuses to enable an endpoint whose stored URL the policy now refuses, and leaves it disabled', async () => {
    const acme = await createCompany(api, 'Enable');
    const { endpoint } = await api.app
      .get(WebhookEndpointsService)
      .create(acme.uuid, { url: 'https://hooks.example.com/x', events: ['*'] });
    await http(api.url, 'POST', `/int/v1/webhook-endpoints/${endpoint.uuid as string}/disable`, {
      key: acme.key,
    });
    // A row written before the policy tightened.
    await sql(api, `UPDATE webhook_endpoints SET url = 'https://intranet/hook' WHERE uuid = $1`, [
      endpoint.uuid,
    ]);
    const response = await http(
      api.url,
      'POST',
      `/int/v1/webhook-endpoints/${endpoint.uuid as string}/enable`,
      {
        key: acme.key,
      },
    );
    expect(response.status).toBe(422);
    expect(response.body.errors[0].detail).toMatch(/single-label host name "intranet"/);
    const [row] = await sql(api, 'SELECT status FROM webhook_endpoints WHERE uuid = $1', [endpoint.uuid]);
    expect(row.status).toBe('disabled');
  });

  it('refuses ports other than 443, 80 and ≥ 1024 in production', () => {
    const production = loadConfig({
      NODE_ENV: 'production',
      APP_KEY: Buffer.alloc(32, 9).toString('base64'),
    });
    const service = new WebhookEndpointsService(production, undefined as never);
    expect(service.refusal('https://hooks.example.com:22/x')).toMatch(/port 22/);
    expect(service.refusal('https://hooks.example.com:25/x')).toMatch(/port 25/);
    for (const port of ['', ':443', ':80', ':1024', ':8443'])
      expect(service.refusal(`https://hooks.example.com${port}/x`)).toBeUndefined();
  });

  it('refuses plain http:// in production', () => {
    const production = loadConfig({
      NODE_ENV: 'production',
      APP_KEY: Buffer.alloc(32, 9).toString('base64'),
    });
    const service = new WebhookEndpointsService(production, undefined as never);
    expect(service.refusal('http://hooks.example.com/x')).toMatch(/https/);
    expect(service.refusal('https://hooks.example.com/x')).toBeUndefined();
  });

  it('refuses at send time a stored URL that now points at a private address, logs it as blocked and does not retry', async () => {
    const acme = await createCompany(api, 'Rebind');
    const { endpoint } = await api.app
      .get(WebhookEndpointsService)
      .create(acme.uuid, { url: 'https://hooks.example.com/x', events: ['*'] });
    // As if its DNS (or an old row) now points at loopback: the send-time check must refuse before connecting.
    await sql(api, `UPDATE webhook_endpoints SET url = 'http://127.0.0.1:9/hook' WHERE uuid = $1`, [
      endpoint.uuid,
    ]);
    await http(api.url, 'POST', '/inventory/int/v1/warehouses', {
      key: acme.key,
      body: warehouse('Blocked'),
    });
    const delivery = await eventually(async () => {
      const [row] = await sql(
        api,
        'SELECT status, attempts FROM webhook_deliveries WHERE webhook_endpoint_uuid = $1',
        [endpoint.uuid],
      );
      return row?.status === 'failed' ? row : undefined;
    });
    expect(delivery.attempts).toBe(1);
    const logs = await sql(
      api,
      'SELECT error, response_status FROM webhook_request_logs WHERE webhook_endpoint_uuid = $1',
      [endpoint.uuid],
    );
    expect(logs).toEqual([
      { error: expect.stringMatching(/^blocked: loopback address 127\.0\.0\.1/), response_status: null },
    ]);
  });

  it('refuses at send time a stored URL that a name rule now refuses, before resolving it', async () => {
    const acme = await createCompany(api, 'OldRow');
    const { endpoint } = await api.app
      .get(WebhookEndpointsService)
      .create(acme.uuid, { url: 'https://hooks.example.com/x', events: ['*'] });
    await sql(api, `UPDATE webhook_endpoints SET url = 'https://localhost./hook' WHERE uuid = $1`, [
      endpoint.uuid,
    ]);
    await http(api.url, 'POST', '/inventory/int/v1/warehouses', {
      key: acme.key,
      body: warehouse('OldRow'),
    });
    const log = await eventually(async () => {
      const [row] = await sql(
        api,
        'SELECT error, response_status FROM webhook_request_logs WHERE webhook_endpoint_uuid = $1',
        [endpoint.uuid],
      );
      return row;
    });
    expect(log).toEqual({
      error: expect.stringMatching(/^blocked: loopback host name "localhost\."/),
      response_status: null,
    });
  });
});
