import { randomBytes } from 'node:crypto';
import { INestApplicationContext } from '@nestjs/common';
import amqp from 'amqplib';
import { Webhook } from 'standardwebhooks';
import { TestCompany, createCompany } from './support/accounts';
import { BROKERS } from './support/brokers';
import { eventually, http } from './support/http';
import { Receiver } from './support/receiver';
import { TestApi, startApi } from './support/test-app';
import { FAST_WEBHOOKS, createEndpoint, sql, warehouse } from './support/webhooks';
import { startWorker } from './support/worker';

const W = '/inventory/int/v1/warehouses';
const E = '/int/v1/webhook-endpoints';
/** FAST_WEBHOOKS: 100ms, 200ms: three attempts. */
const ATTEMPTS = 3;

describe('destinations: a publish the broker does not take is a failed attempt', () => {
  let api: TestApi;
  let worker: INestApplicationContext;
  let receiver: Receiver;
  let rabbit: amqp.ChannelModel;
  const exchange = `wharf_unbound_${randomBytes(6).toString('hex')}`;

  beforeAll(async () => {
    api = await startApi({ env: FAST_WEBHOOKS });
    worker = await startWorker(api.config);
    receiver = await new Receiver().start();
    // An exchange no queue is bound to: a mandatory message is returned, not routed.
    rabbit = await amqp.connect('amqp://guest:guest@127.0.0.1:5672');
    const channel = await rabbit.createChannel();
    await channel.assertExchange(exchange, 'topic', { durable: false });
  });
  afterAll(async () => {
    await worker?.close();
    const channel = await rabbit.createChannel();
    await channel.deleteExchange(exchange);
    await rabbit.close();
    await receiver.stop();
    await api.close();
  });

  /** A broker endpoint of `company`, and an http endpoint watching its delivery.exhausted events. */
  async function watched(company: TestCompany, type: string, config: Record<string, unknown>) {
    const watch = await createEndpoint(api, company, `${receiver.url}/watch-${company.uuid}`, [
      'delivery.exhausted',
    ]);
    const created = await http(api.url, 'POST', E, {
      key: company.key,
      body: { webhook_endpoint: { type, config, events: ['warehouse.created'] } },
    });
    expect(created.status).toBe(201);
    return { uuid: created.body.webhook_endpoint.uuid as string, secret: watch.secret };
  }

  it.each([
    [
      'a RabbitMQ exchange with no bound queue (the mandatory message returned)',
      'rabbitmq',
      () => ({ url: BROKERS.rabbitmq.url(), exchange }),
      /^unroutable: the broker returned the message \(312 NO_ROUTE\)$/,
    ],
    [
      'a RabbitMQ exchange that does not exist (the server closes the channel)',
      'rabbitmq',
      () => ({ url: BROKERS.rabbitmq.url(), exchange: `${exchange}_missing` }),
      /^Channel closed by server: 404 \(NOT-FOUND\) with message "NOT_FOUND - no exchange 'wharf_unbound_[0-9a-f]+_missing'/,
    ],
    [
      'a JetStream subject no stream captures',
      'nats',
      () => ({ url: BROKERS.nats.url(), subject: `wharf_nostream_${randomBytes(6).toString('hex')}.x` }),
      /^no stream for subject "wharf_nostream_[0-9a-f]+\.x"$/,
    ],
  ])(
    '%s: each attempt fails with the reason in the log, is retried, then fails; delivery.exhausted fires',
    async (_, type, config, reason) => {
      const company = await createCompany(api, `fail-${type}`);
      const { uuid, secret } = await watched(company, type, config());
      expect(
        (await http(api.url, 'POST', W, { key: company.key, body: warehouse(`Unrouted ${type}`) })).status,
      ).toBe(201);

      const path = `/watch-${company.uuid}`;
      await eventually(async () => receiver.requests.some((r) => r.path === path), 30_000);
      const notice = receiver.requests.find((r) => r.path === path)!;
      const event = new Webhook(secret).verify(notice.body, notice.headers as Record<string, string>) as {
        event: string;
        data: Record<string, unknown>;
      };
      expect(event.event).toBe('delivery.exhausted');
      expect(event.data).toMatchObject({
        webhook_endpoint_uuid: uuid,
        event: 'warehouse.created',
        attempts: ATTEMPTS,
        last_response_status: null,
      });
      expect(String(event.data.last_error)).toMatch(reason);

      const attempts = await sql(
        api,
        `SELECT attempt, status, error, url, response_status, request_headers FROM webhook_request_logs
       WHERE webhook_endpoint_uuid = $1 ORDER BY attempt`,
        [uuid],
      );
      expect(attempts.map((a) => [a.attempt, a.status, a.response_status])).toEqual([
        [1, 'failed', null],
        [2, 'failed', null],
        [3, 'failed', null],
      ]);
      for (const attempt of attempts) {
        expect(attempt.error).toMatch(reason);
        expect(attempt.url).toContain(
          type === 'rabbitmq' ? `exchange "${exchange}` : 'subject "wharf_nostream_',
        );
        expect(attempt.request_headers).toMatchObject({ 'webhook-signature': '[redacted]' });
      }
      const [delivery] = await sql(
        api,
        'SELECT status FROM webhook_deliveries WHERE webhook_endpoint_uuid = $1',
        [uuid],
      );
      expect(delivery.status).toBe('failed');
    },
  );
});
