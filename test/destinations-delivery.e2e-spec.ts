import { INestApplicationContext } from '@nestjs/common';
import { Webhook } from 'standardwebhooks';
import { createCompany } from './support/accounts';
import { BROKERS, BrokerName, CONSUMERS, Consumed, TestConsumer } from './support/brokers';
import { eventually, http } from './support/http';
import { TcpProxy } from './support/tcp-proxy';
import { TestApi, startApi } from './support/test-app';
import { FAST_WEBHOOKS, sql, warehouse } from './support/webhooks';
import { startWorker } from './support/worker';

const W = '/inventory/int/v1/warehouses';
const E = '/int/v1/webhook-endpoints';
/** Retries close together but enough of them to outlast the outage: the last is the 12th attempt. */
const SCHEDULE = [300, 600, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000];
const RECORDS = 40;
/** Each record: created, then updated UPDATES times: RECORDS × (UPDATES + 1) = 200 changes. */
const UPDATES = 4;

/** The record a message is about and its position among the record's changes (create = 0, update k = k). */
function position(body: string): { record: string; index: number } {
  const envelope = JSON.parse(body);
  const { id, name } = envelope.data as { id: string; name: string };
  return {
    record: id,
    index: envelope.event === 'warehouse.created' ? 0 : Number(/-u(\d+)$/.exec(name)![1]),
  };
}

/** Writes `records` records' changes, each record's one after another, ten records at a time. */
async function writeChanges(api: TestApi, key: string, names: string[], from: number, to: number) {
  await Promise.all(
    names.map(async (name) => {
      for (let k = from; k <= to; k++) {
        if (k === 0) {
          const created = await http(api.url, 'POST', W, { key, body: warehouse(name) });
          expect(created.status).toBe(201);
          uuids.set(name, created.body.warehouse.uuid);
        } else {
          const updated = await http(api.url, 'PUT', `${W}/${uuids.get(name)}`, {
            key,
            body: { warehouse: { name: `${name}-u${k}` } },
          });
          expect(updated.status).toBe(200);
        }
      }
    }),
  );
}
const uuids = new Map<string, string>();

/** The messages by event id (each verified with the endpoint's secret from its headers). */
function verified(secret: string, received: Consumed[]): Map<string, number> {
  const hook = new Webhook(secret);
  const counts = new Map<string, number>();
  for (const { headers, body } of received) {
    const event = hook.verify(body, headers) as { id?: string };
    expect(headers['webhook-id']).toMatch(/^evt_/);
    void event;
    counts.set(headers['webhook-id'], (counts.get(headers['webhook-id']) ?? 0) + 1);
  }
  return counts;
}

describe.each(Object.keys(BROKERS) as BrokerName[])('destination %s', (type) => {
  let api: TestApi;
  let worker: INestApplicationContext | undefined;
  let consumer: TestConsumer;
  let proxy: TcpProxy;

  beforeAll(async () => {
    api = await startApi({
      env: {
        ...FAST_WEBHOOKS,
        RATE_LIMIT_PER_MINUTE: '100000',
        WEBHOOKS_RETRY_SCHEDULE: SCHEDULE.map((ms) => `${ms}ms`).join(','),
        // A confirm late on a busy machine must not count as lost (its retry would publish it twice).
        WEBHOOKS_TIMEOUT_MS: '10000',
      },
    });
    worker = await startWorker(api.config);
    consumer = await CONSUMERS[type]();
    proxy = await new TcpProxy(BROKERS[type].port).start();
  });
  afterAll(async () => {
    await worker?.close();
    await proxy?.stop();
    await consumer?.close();
    await api?.close();
  });

  it('200 changes reach a consumer exactly once per event id, verified from the headers, in order per record through an outage', async () => {
    const company = await createCompany(api, `dest-${type}`);
    const created = await http(api.url, 'POST', E, {
      key: company.key,
      body: {
        webhook_endpoint: {
          type,
          config: consumer.config(proxy.port),
          events: ['warehouse.created', 'warehouse.updated'],
          ordering: 'entity',
          max_in_flight: 20,
        },
      },
    });
    expect(created.status).toBe(201);
    const { uuid, secret } = created.body.webhook_endpoint as { uuid: string; secret: string };
    const names = Array.from({ length: RECORDS }, (_, i) => `${type}-r${i}`);
    const eventIds = async () =>
      (
        await sql(
          api,
          "SELECT event_id FROM webhook_events WHERE company_uuid = $1 AND name LIKE 'warehouse.%'",
          [company.uuid],
        )
      ).map((row) => row.event_id as string);

    // Half the changes while the broker is up: each arrives once.
    await writeChanges(api, company.key, names, 0, 1);
    await eventually(async () => consumer.received.length >= RECORDS * 2, 60_000);
    const before = verified(secret, consumer.received);
    expect(before.size).toBe(RECORDS * 2);
    expect([...before.values()].every((n) => n === 1)).toBe(true);
    // One connection, shared by every delivery to the broker.
    expect(proxy.accepted).toBe(1);

    // The connection is cut: the rest fail while it is, and are retried until it is back.
    proxy.cut();
    const writing = writeChanges(api, company.key, names, 2, UPDATES);
    const failedAttempts = async () =>
      (
        await sql(
          api,
          `SELECT count(*)::int AS n FROM webhook_request_logs WHERE webhook_endpoint_uuid = $1 AND status = 'failed'`,
          [uuid],
        )
      )[0].n as number;
    await eventually(async () => (await failedAttempts()) >= 20, 60_000);
    await writing;
    proxy.restore();

    const all = await eventIds();
    expect(all).toHaveLength(RECORDS * (UPDATES + 1));
    await eventually(
      async () => new Set(consumer.received.map((m) => m.headers['webhook-id'])).size >= all.length,
      90_000,
    );
    const counts = verified(secret, consumer.received);
    expect([...counts.keys()].sort()).toEqual([...all].sort());

    // A message received twice is one whose publish got no answer in the cut (its retry published it again).
    const unanswered = new Set(
      (
        await sql(
          api,
          `SELECT DISTINCT event_id FROM webhook_request_logs WHERE webhook_endpoint_uuid = $1 AND status = 'failed'`,
          [uuid],
        )
      ).map((row) => row.event_id as string),
    );
    for (const [id, n] of counts) if (n > 1) expect(unanswered.has(id)).toBe(true);
    // Never more copies than publishes; NATS drops a retried duplicate (the event id is its Nats-Msg-Id).
    const published = new Map<string, number>(
      (
        await sql(
          api,
          `SELECT event_id, count(*)::int AS n FROM webhook_request_logs WHERE webhook_endpoint_uuid = $1 GROUP BY event_id`,
          [uuid],
        )
      ).map((row) => [row.event_id as string, row.n as number]),
    );
    for (const [id, n] of counts) expect([id, n <= published.get(id)!]).toEqual([id, true]);
    if (type === 'nats') {
      expect([...counts.values()].filter((n) => n > 1)).toEqual([]);
      expect(await consumer.stored!()).toBe(all.length);
    }

    // Per record, first arrivals are in commit order.
    const seen = new Map<string, number[]>();
    const first = new Set<string>();
    for (const message of consumer.received) {
      if (first.has(message.headers['webhook-id'])) continue;
      first.add(message.headers['webhook-id']);
      const { record, index } = position(message.body);
      seen.set(record, [...(seen.get(record) ?? []), index]);
    }
    for (const name of names) expect(seen.get(uuids.get(name)!)).toEqual([0, 1, 2, 3, 4]);

    // The failures were retried on the schedule: each retry no sooner than its step (less the jitter).
    const attempts = await sql(
      api,
      `SELECT event_id, attempt, sent_at, error FROM webhook_request_logs
       WHERE webhook_endpoint_uuid = $1 ORDER BY event_id, attempt`,
      [uuid],
    );
    let retried = 0;
    for (let i = 1; i < attempts.length; i++) {
      const [a, b] = [attempts[i - 1], attempts[i]];
      if (a.event_id !== b.event_id) continue;
      retried++;
      expect(a.error).not.toBeNull();
      const gap = new Date(b.sent_at).getTime() - new Date(a.sent_at).getTime();
      expect(gap).toBeGreaterThanOrEqual(SCHEDULE[a.attempt - 1] * 0.8 - 5);
    }
    expect(retried).toBeGreaterThan(0);
    // Attempts in the cut tried to reconnect (and were reset); after it, one connection again.
    expect(proxy.refused).toBeGreaterThan(0);
    expect(proxy.open).toBe(1);

    // Worker shutdown closes it.
    await worker!.close();
    worker = undefined;
    await eventually(async () => proxy.open === 0, 10_000);
  }, 240_000);
});
