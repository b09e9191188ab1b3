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
    expect((error as ApiError).errors[0].source?.pointer).toBe('/webhook_endpoint/url');
    expect(
      await sql(api, 'SELECT 1 FROM webhook_endpoints WHERE company_uuid = $1', [acme.uuid]),
    ).toHaveLength(0);
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
});
