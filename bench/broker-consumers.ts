import { randomBytes } from 'node:crypto';
import amqp from 'amqplib';
import { Redis } from 'ioredis';
import mqtt from 'mqtt';
import { connect as natsConnect } from 'nats';

/** A consumer of a broker that counts what arrives, and the endpoint config that publishes there. */
export interface CountingConsumer {
  config: Record<string, unknown>;
  received(): number;
  close(): Promise<void>;
}

const unique = (prefix: string) => `${prefix}${randomBytes(5).toString('hex')}`;
export const AMQP_URL = process.env.BENCH_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';

/** A durable queue bound to a new exchange: persistent messages are written as a durable delivery's are. */
async function rabbitmq(): Promise<CountingConsumer> {
  const [exchange, queue] = [unique('bench_x_'), unique('bench_q_')];
  const connection = await amqp.connect(AMQP_URL);
  const channel = await connection.createChannel();
  await channel.assertExchange(exchange, 'topic', { durable: true });
  await channel.assertQueue(queue, { durable: true });
  await channel.bindQueue(queue, exchange, '#');
  await channel.prefetch(1000);
  let count = 0;
  await channel.consume(queue, (message) => {
    if (!message) return;
    count++;
    channel.ack(message);
  });
  return {
    config: { url: 'amqp://127.0.0.1:5672', exchange, username: 'guest', password: 'guest' },
    received: () => count,
    async close() {
      await channel.deleteQueue(queue);
      await channel.deleteExchange(exchange);
      await connection.close();
    },
  };
}

async function nats(): Promise<CountingConsumer> {
  const stream = unique('BENCH_');
  const nc = await natsConnect({ servers: process.env.BENCH_NATS_SERVER ?? '127.0.0.1:4222' });
  const jsm = await nc.jetstreamManager();
  await jsm.streams.add({ name: stream, subjects: [`${stream}.>`] });
  const messages = await (await nc.jetstream().consumers.get(stream)).consume();
  let count = 0;
  void (async () => {
    for await (const _ of messages) count++;
  })();
  return {
    config: { url: 'nats://127.0.0.1:4222', subject: `${stream}.events` },
    received: () => count,
    async close() {
      await messages.close();
      await jsm.streams.delete(stream);
      await nc.close();
    },
  };
}

async function mqttConsumer(): Promise<CountingConsumer> {
  const topic = unique('bench/');
  const client = await mqtt.connectAsync('mqtt://127.0.0.1:1883', { protocolVersion: 5 });
  let count = 0;
  client.on('message', () => count++);
  await client.subscribeAsync(`${topic}/#`, { qos: 1 });
  return {
    config: { url: 'mqtt://127.0.0.1:1883', topic: `${topic}/events` },
    received: () => count,
    close: () => client.endAsync(),
  };
}

async function redisStream(): Promise<CountingConsumer> {
  const stream = unique('bench-stream-');
  const redis = new Redis('redis://127.0.0.1:6379');
  let count = 0;
  let open = true;
  let last = '0';
  const reading = (async () => {
    while (open) {
      const answer = await redis.xread('COUNT', 1000, 'BLOCK', 100, 'STREAMS', stream, last);
      for (const [, entries] of answer ?? []) {
        count += entries.length;
        if (entries.length) last = entries[entries.length - 1][0];
      }
    }
  })();
  return {
    config: { url: 'redis://127.0.0.1:6379/0', stream },
    received: () => count,
    async close() {
      open = false;
      await reading;
      await redis.del(stream);
      redis.disconnect();
    },
  };
}

export const BENCH_CONSUMERS: Record<string, () => Promise<CountingConsumer>> = {
  rabbitmq,
  nats,
  mqtt: mqttConsumer,
  redis_stream: redisStream,
};
