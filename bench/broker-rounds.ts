import { join } from 'node:path';
import { INestApplication } from '@nestjs/common';
import { AppConfig, bullConnection } from '@wharf/core';
import { AccountsService } from '@wharf/accounts';
import { WebhookEndpointsService } from '@wharf/webhooks';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { DataSource } from 'typeorm';
import { Agent, request } from 'undici';
import { forkScript, sleep, startProcess, stopProcess } from './bench-support';
import { AMQP_URL, BENCH_CONSUMERS, CountingConsumer } from './broker-consumers';
import { cpuPerItem, readCpu } from './process-cpu';

/** Deliveries per broker round (BENCH_BROKER_EVENTS), and the concurrency of the worker and the floor. */
export interface BrokerBench {
  app: INestApplication;
  url: string;
  config: AppConfig;
  env: Record<string, string>;
  redis: Redis;
  events: number;
  concurrency: number;
}

interface Measured {
  perSecond: number;
  cpu: Record<string, number>;
}

const round3 = (value: number) => Number(value.toFixed(3));

/** Waits for the first message at the consumer, then for `total`: the rate and CPU in between. */
async function measure(
  consumer: CountingConsumer,
  total: number,
  redis: Redis,
  pid: number,
): Promise<Measured> {
  const start = consumer.received();
  while (consumer.received() === start) await sleep(5);
  const first = { at: performance.now(), count: consumer.received(), cpu: await readCpu(redis, [pid]) };
  while (consumer.received() < start + total) await sleep(5);
  const moved = start + total - first.count;
  return {
    perSecond: moved / ((performance.now() - first.at) / 1000),
    cpu: cpuPerItem(first.cpu, await readCpu(redis, [pid]), moved, 'consumer'),
  };
}

/** A company with one endpoint of `type` publishing where `consumer` reads, and a backlog of `events` creates. */
async function backlog(bench: BrokerBench, type: string, consumer: CountingConsumer) {
  const { app } = bench;
  const company = await app.get(AccountsService).createCompany(`Bench ${type}`);
  const { endpoint } = await app
    .get(WebhookEndpointsService)
    .create(company.company.uuid, { type, config: consumer.config, events: ['warehouse.created'] });
  await app
    .get(DataSource)
    .query('UPDATE webhook_endpoints SET max_in_flight = $1 WHERE uuid = $2', [
      Math.min(100, bench.concurrency),
      endpoint.uuid,
    ]);
  const client = new Agent({ connections: 32 });
  const headers = { authorization: `Bearer ${company.api_key}`, 'content-type': 'application/json' };
  for (let i = 0; i < bench.events; i += 64)
    await Promise.all(
      Array.from({ length: Math.min(64, bench.events - i) }, async (_, j) => {
        const res = await request(`${bench.url}/inventory/int/v1/warehouses`, {
          method: 'POST',
          headers,
          dispatcher: client,
          body: JSON.stringify({
            warehouse: {
              name: `${type}${i + j}`,
              address: 'a',
              city: 'c',
              state: 's',
              zip: 'z',
              capacity: i,
            },
          }),
        });
        if (res.statusCode !== 201)
          throw new Error(`create failed: ${res.statusCode} ${await res.body.text()}`);
        await res.body.text();
      }),
    );
  await client.close();
  return company.company.uuid;
}

/** The RabbitMQ floor: BullMQ jobs, each publishing one confirmed message with amqplib; no database. */
async function amqpFloor(bench: BrokerBench, consumer: CountingConsumer, body: string): Promise<Measured> {
  const prefix = `${bench.config.queuePrefix}-amqp-floor`;
  const queue = new Queue('floor', { connection: bullConnection(bench.config.redisUrl), prefix });
  for (let i = 0; i < bench.events; i += 1000)
    await queue.addBulk(
      Array.from({ length: Math.min(1000, bench.events - i) }, (_, j) => ({
        name: 'job',
        data: { id: `msg_floor_${i + j}`, body },
        opts: { removeOnComplete: true, removeOnFail: true },
      })),
    );
  const child = forkScript(join(__dirname, 'amqp-floor.worker.js'), {
    FLOOR_REDIS_URL: bench.config.redisUrl,
    FLOOR_PREFIX: prefix,
    FLOOR_AMQP_URL: AMQP_URL,
    FLOOR_EXCHANGE: String(consumer.config.exchange),
    FLOOR_CONCURRENCY: String(bench.concurrency),
  });
  const measured = await measure(consumer, bench.events, bench.redis, child.pid!);
  await stopProcess(child);
  await queue.obliterate({ force: true });
  await queue.close();
  return measured;
}

/**
 * One round per broker type: a backlog of durable deliveries drained by one worker process to the real
 * broker, counted at a consumer of it; for RabbitMQ, then the floor in the same round on the same exchange.
 */
export async function brokerRounds(bench: BrokerBench): Promise<Record<string, unknown>> {
  const result: Record<string, unknown> = {};
  for (const [type, open] of Object.entries(BENCH_CONSUMERS)) {
    const consumer = await open();
    const company = await backlog(bench, type, consumer);
    const worker = startProcess('worker', bench.env);
    const drain = await measure(consumer, bench.events, bench.redis, worker.pid!);
    await stopProcess(worker);
    const [sample]: { body: string }[] = await bench.app
      .get(DataSource)
      .query('SELECT payload::text AS body FROM webhook_events WHERE company_uuid = $1 LIMIT 1', [company]);
    const round: Record<string, unknown> = {
      deliveries_per_second: Math.round(drain.perSecond),
      cpu_us_per_delivery: drain.cpu,
    };
    if (type === 'rabbitmq') {
      const floor = await amqpFloor(bench, consumer, sample.body);
      Object.assign(round, {
        floor_bullmq_plus_amqp_confirm_per_second: Math.round(floor.perSecond),
        ratio_to_floor: round3(drain.perSecond / floor.perSecond),
        cpu_us_per_floor_message: floor.cpu,
        cpu_ratio_to_floor: round3(drain.cpu.total / floor.cpu.total),
        target: { ratio_to_floor: '>= 0.85' },
      });
    }
    await bench.app.get(DataSource).query('DELETE FROM webhook_endpoints WHERE company_uuid = $1', [company]);
    await consumer.close();
    result[type] = round;
  }
  return { events: bench.events, ...result };
}
