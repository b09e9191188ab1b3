import { INestApplicationContext } from '@nestjs/common';
import { Webhook } from 'standardwebhooks';
import { createCompany } from './support/accounts';
import { CONSUMERS, TestConsumer } from './support/brokers';
import { eventually, http } from './support/http';
import { TestApi, startApi } from './support/test-app';
import { FAST_WEBHOOKS, sql, warehouse } from './support/webhooks';
import { startWorker } from './support/worker';

const W = '/inventory/int/v1/warehouses';

describe('destinations: a broker endpoint goes through the same pipeline as a webhook', () => {
  let api: TestApi;
  let worker: INestApplicationContext;
  let stream: TestConsumer;

  beforeAll(async () => {
    api = await startApi({ env: FAST_WEBHOOKS });
    worker = await startWorker(api.config);
    stream = await CONSUMERS.redis_stream();
  });
  afterAll(async () => {
    await worker?.close();
    await stream?.close();
    await api?.close();
  });

  it('its payload filter, thin payload and resend apply: what is published is what a webhook would carry', async () => {
    const company = await createCompany(api, 'Pipeline');
    const created = await http(api.url, 'POST', '/int/v1/webhook-endpoints', {
      key: company.key,
      body: {
        webhook_endpoint: {
          type: 'redis_stream',
          config: stream.config(),
          events: ['warehouse.created'],
          filter: { 'data.city': 'Delft' },
          payload: 'thin',
          // One at a time, in order: a Rotterdam delivery would arrive before the Delft one.
          max_in_flight: 1,
        },
      },
    });
    expect(created.status).toBe(201);
    const { uuid, secret } = created.body.webhook_endpoint as { uuid: string; secret: string };
    await http(api.url, 'POST', W, { key: company.key, body: warehouse('Filtered out') });
    const delft = await http(api.url, 'POST', W, {
      key: company.key,
      body: warehouse('Kept', { city: 'Delft' }),
    });
    await eventually(async () => stream.received.length === 1, 30_000);
    const [message] = stream.received;
    const event = new Webhook(secret).verify(message.body, message.headers) as {
      data: Record<string, unknown>;
    };
    // Thin: the record's reference, not the record.
    expect(event.data).toMatchObject({ id: delft.body.warehouse.uuid, object: 'warehouse' });
    expect(event.data.name).toBeUndefined();

    // Recorded once the broker's answer is (just after the consumer may have read it).
    const log = await eventually(async () => {
      const rows = await sql(
        api,
        `SELECT uuid, request_body FROM webhook_request_logs WHERE webhook_endpoint_uuid = $1 AND status = 'successful'`,
        [uuid],
      );
      return rows[0] as { uuid: string; request_body: string } | undefined;
    });
    expect(log.request_body).toBe(message.body);
    const resent = await http(api.url, 'POST', `/int/v1/webhook-request-logs/${log.uuid}/resend`, {
      key: company.key,
    });
    expect(resent.status).toBeLessThan(300);
    await eventually(async () => stream.received.length === 2, 30_000);
    expect(stream.received[1].headers['webhook-id']).toBe(message.headers['webhook-id']);
    new Webhook(secret).verify(stream.received[1].body, stream.received[1].headers);
  });
});
