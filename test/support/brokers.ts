import { randomBytes } from 'node:crypto';
import amqp from 'amqplib';
import Redis from 'ioredis';
import mqtt from 'mqtt';
import { connect as natsConnect } from 'nats';

/** The shared brokers of the machine (never stopped by a test: outages go through a TcpProxy). */
export const BROKERS = {
  rabbitmq: { port: 5672, url: (port = 5672) => `amqp://127.0.0.1:${port}` },
  nats: { port: 4222, url: (port = 4222) => `nats://127.0.0.1:${port}` },
  mqtt: { port: 1883, url: (port = 1883) => `mqtt://127.0.0.1:${port}` },
  redis_stream: { port: 6379, url: (port = 6379) => `redis://127.0.0.1:${port}/0` },
} as const;
export type BrokerName = keyof typeof BROKERS;

/** One message as a consumer of the broker read it: its headers (or properties, or fields) and body. */
export interface Consumed {
  headers: Record<string, string>;
  body: string;
}

/** A consumer of the broker, and the config of an endpoint whose messages it reads. */
export interface TestConsumer {
  received: Consumed[];
  /** An endpoint config publishing where this consumer reads (pass the proxy's port to go through it). */
  config(port?: number): Record<string, unknown>;
  /** How many messages the broker itself holds, where it keeps them (a NATS stream). */
  stored?(): Promise<number>;
  close(): Promise<void>;
}

const unique = (prefix: string) => `${prefix}_${randomBytes(6).toString('hex')}`;
const text = (value: unknown) => (Buffer.isBuffer(value) ? value.toString('utf8') : String(value));

/** A queue bound (#) to a new topic exchange. */
async function rabbitmq(): Promise<TestConsumer> {
  const exchange = unique('wharf_test');
  const connection = await amqp.connect('amqp://guest:guest@127.0.0.1:5672');
  const channel = await connection.createChannel();
  await channel.assertExchange(exchange, 'topic', { durable: false, autoDelete: false });
  const { queue } = await channel.assertQueue('', { exclusive: true });
  await channel.bindQueue(queue, exchange, '#');
  const received: Consumed[] = [];
  await channel.consume(
    queue,
    (message) => {
      if (!message) return;
      const headers = Object.fromEntries(
        Object.entries(message.properties.headers ?? {}).map(([name, value]) => [name, text(value)]),
      );
      received.push({ headers, body: message.content.toString('utf8') });
    },
    { noAck: true },
  );
  return {
    received,
    config: (port) => ({ url: BROKERS.rabbitmq.url(port), exchange, username: 'guest', password: 'guest' }),
    async close() {
      await channel.deleteExchange(exchange);
      await connection.close();
    },
  };
}

/** A stream capturing a subject of its own, read by an ordered consumer. */
async function nats(): Promise<TestConsumer> {
  const name = unique('WHARF_TEST');
  const subject = `${name}.events`;
  const nc = await natsConnect({ servers: '127.0.0.1:4222' });
  const jsm = await nc.jetstreamManager();
  await jsm.streams.add({ name, subjects: [`${name}.>`] });
  // An ordered consumer: every message of the stream, from its start, in order.
  const consumer = await nc.jetstream().consumers.get(name);
  const received: Consumed[] = [];
  const messages = await consumer.consume();
  // An ordered consumer that resets (a heartbeat missed under load) may hand a stored message over again: one
  // stream sequence is one message, however often the consumer reads it.
  const read = new Set<number>();
  void (async () => {
    for await (const message of messages) {
      if (read.has(message.seq)) continue;
      read.add(message.seq);
      const headers: Record<string, string> = {};
      for (const key of message.headers?.keys() ?? []) headers[key] = message.headers!.get(key);
      received.push({ headers, body: message.string() });
    }
  })();
  return {
    received,
    config: (port) => ({ url: BROKERS.nats.url(port), subject }),
    stored: async () => (await jsm.streams.info(name)).state.messages,
    async close() {
      await messages.close();
      await jsm.streams.delete(name);
      await nc.close();
    },
  };
}

/** An MQTT 5 subscriber at QoS 1 of a topic of its own. */
async function mqttConsumer(): Promise<TestConsumer> {
  const topic = `${unique('wharf_test')}/events`;
  const client = await mqtt.connectAsync('mqtt://127.0.0.1:1883', { protocolVersion: 5, reconnectPeriod: 0 });
  const received: Consumed[] = [];
  client.on('message', (_topic, payload, packet) => {
    const properties = (packet.properties?.userProperties ?? {}) as Record<string, string | string[]>;
    const headers = Object.fromEntries(
      Object.entries(properties).map(([name, value]) => [name, Array.isArray(value) ? value[0] : value]),
    );
    received.push({ headers, body: payload.toString('utf8') });
  });
  await client.subscribeAsync(topic, { qos: 1 });
  return {
    received,
    config: (port) => ({ url: BROKERS.mqtt.url(port), topic }),
    close: () => client.endAsync(),
  };
}

/** XREAD of a stream of its own, from its start. */
async function redisStream(): Promise<TestConsumer> {
  const stream = unique('wharf_test_stream');
  const redis = new Redis('redis://127.0.0.1:6379');
  const received: Consumed[] = [];
  let open = true;
  let last = '0';
  const reading = (async () => {
    while (open) {
      const answer = await redis.xread('BLOCK', 200, 'STREAMS', stream, last);
      for (const [, entries] of answer ?? [])
        for (const [id, fields] of entries) {
          last = id;
          const values: Record<string, string> = {};
          for (let i = 0; i < fields.length; i += 2) values[fields[i]] = fields[i + 1];
          const { body, ...headers } = values;
          received.push({ headers, body });
        }
    }
  })();
  return {
    received,
    config: (port) => ({ url: BROKERS.redis_stream.url(port), stream }),
    async close() {
      open = false;
      await reading;
      await redis.del(stream);
      redis.disconnect();
    },
  };
}

export const CONSUMERS: Record<BrokerName, () => Promise<TestConsumer>> = {
  rabbitmq,
  nats,
  mqtt: mqttConsumer,
  redis_stream: redisStream,
};
