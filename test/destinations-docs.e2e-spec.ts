import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INestApplicationContext } from '@nestjs/common';
import amqp from 'amqplib';
import Redis from 'ioredis';
import { connect as natsConnect } from 'nats';
import { TestCompany, createCompany } from './support/accounts';
import { BROKERS, BrokerName } from './support/brokers';
import { eventually, http } from './support/http';
import { ROOT, Spawned, runNode } from './support/processes';
import { TestApi, startApi } from './support/test-app';
import { FAST_WEBHOOKS, warehouse } from './support/webhooks';
import { startWorker } from './support/worker';

/** docs/destinations.md's consumer programs, by type: the ```js consumer <type> blocks. */
const EXAMPLES = new Map(
  [
    ...readFileSync(join(ROOT, 'docs', 'destinations.md'), 'utf8').matchAll(
      /^```js consumer (\w+)\n([\s\S]*?)^```$/gm,
    ),
  ].map((match) => [match[1], match[2]]),
);

const unique = (prefix: string) => `${prefix}${randomBytes(5).toString('hex')}`;

interface Setup {
  env: Record<string, string>;
  config: Record<string, unknown>;
  cleanup(): Promise<void>;
}

/** What each example is run with, the endpoint config publishing where it reads, and the cleanup. */
function setup(type: BrokerName): Setup {
  switch (type) {
    case 'rabbitmq': {
      const [exchange, queue] = [unique('docs_x_'), unique('docs_q_')];
      return {
        env: { AMQP_URL: 'amqp://guest:guest@127.0.0.1:5672', EXCHANGE: exchange, QUEUE: queue },
        config: { url: BROKERS.rabbitmq.url(), exchange },
        async cleanup() {
          const connection = await amqp.connect('amqp://guest:guest@127.0.0.1:5672');
          const channel = await connection.createChannel();
          await channel.deleteQueue(queue);
          await channel.deleteExchange(exchange);
          await connection.close();
        },
      };
    }
    case 'nats': {
      const stream = unique('DOCS_');
      return {
        env: { NATS_URL: 'nats://127.0.0.1:4222', STREAM: stream, SUBJECT: `${stream}.>` },
        config: { url: BROKERS.nats.url(), subject: `${stream}.events` },
        async cleanup() {
          const nc = await natsConnect({ servers: '127.0.0.1:4222' });
          await (await nc.jetstreamManager()).streams.delete(stream);
          await nc.close();
        },
      };
    }
    case 'mqtt': {
      const topic = unique('docs/');
      return {
        env: { MQTT_URL: 'mqtt://127.0.0.1:1883', TOPIC: `${topic}/#` },
        config: { url: BROKERS.mqtt.url(), topic: `${topic}/events` },
        cleanup: async () => undefined,
      };
    }
    case 'redis_stream': {
      const stream = unique('docs-stream-');
      return {
        env: { REDIS_URL: 'redis://127.0.0.1:6379/0', STREAM: stream },
        config: { url: BROKERS.redis_stream.url(), stream },
        async cleanup() {
          const redis = new Redis('redis://127.0.0.1:6379');
          await redis.del(stream);
          redis.disconnect();
        },
      };
    }
  }
}

describe('docs/destinations.md: each consumer example verifies what an endpoint of its type publishes', () => {
  let api: TestApi;
  let worker: INestApplicationContext;
  let company: TestCompany;
  let dir: string;

  beforeAll(async () => {
    api = await startApi({ env: FAST_WEBHOOKS });
    worker = await startWorker(api.config);
    company = await createCompany(api, 'Docs');
    dir = await mkdtemp(join(tmpdir(), 'wharf-consumers-'));
  });
  afterAll(async () => {
    await worker?.close();
    await api?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('has one example per broker type', () => {
    expect([...EXAMPLES.keys()]).toEqual(Object.keys(BROKERS));
  });

  it.each(Object.keys(BROKERS) as BrokerName[])('%s', async (type) => {
    const { env, config, cleanup } = setup(type);
    const created = await http(api.url, 'POST', '/int/v1/webhook-endpoints', {
      key: company.key,
      body: { webhook_endpoint: { type, config, events: ['warehouse.created'] } },
    });
    expect(created.status).toBe(201);
    const file = join(dir, `${type}-consumer.js`);
    await writeFile(file, EXAMPLES.get(type)!);
    // The example's own dependencies, as `npm install` would give it: this checkout's.
    const consumer: Spawned = runNode(file, [], {
      ...env,
      WEBHOOK_SECRET: created.body.webhook_endpoint.secret,
      NODE_PATH: join(ROOT, 'node_modules'),
    });
    try {
      await eventually(async () => consumer.output().includes('listening'), 20_000);
      const written = await http(api.url, 'POST', '/inventory/int/v1/warehouses', {
        key: company.key,
        body: warehouse(`Docs ${type}`),
      });
      expect(written.status).toBe(201);
      await eventually(async () => /verified warehouse\.created evt_\w+/.test(consumer.output()), 30_000);
      expect(consumer.output()).not.toContain('rejected');
    } finally {
      await http(api.url, 'DELETE', `/int/v1/webhook-endpoints/${created.body.webhook_endpoint.uuid}`, {
        key: company.key,
      });
      consumer.child.kill('SIGTERM');
      await consumer.exited;
      await cleanup();
    }
  });
});
