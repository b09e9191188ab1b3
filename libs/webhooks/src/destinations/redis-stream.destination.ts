import type Redis from 'ioredis';
import { brokerError } from './broker-error';
import {
  BrokerAnswer,
  BrokerConnection,
  BrokerType,
  DestinationConfig,
  Dial,
  NAME_STRING,
  Publication,
  SECRET_STRING,
  failed,
  field,
  ok,
  urlSchema,
} from './destination-type';

const SCHEMES = { plain: 'redis', tls: 'rediss' };

/**
 * A Redis connection that neither retries nor queues commands while down: a command then fails at once,
 * and the next attempt opens a new connection. Each message is one XADD of the body and the Standard
 * Webhooks headers as fields; the entry id is success.
 */
class RedisStreamConnection implements BrokerConnection {
  broken = false;

  constructor(private readonly redis: Redis) {
    const breakOff = () => (this.broken = true);
    redis.on('close', breakOff).on('end', breakOff).on('error', breakOff);
  }

  async publish(config: DestinationConfig, message: Publication): Promise<BrokerAnswer> {
    const stream = String(config.stream);
    const maxlen = typeof config.maxlen === 'number' ? ['MAXLEN', '~', String(config.maxlen)] : [];
    const fields = ['body', message.body];
    for (const name in message.headers) fields.push(name, message.headers[name]);
    try {
      const id = await this.redis.xadd(stream, ...maxlen, '*', ...fields);
      return id ? ok(id, { id, stream }) : failed('no entry id');
    } catch (error) {
      const text = brokerError(error);
      if (/timed out/i.test(text)) {
        this.broken = true;
        return failed('timeout');
      }
      return failed(text);
    }
  }

  async close(): Promise<void> {
    this.broken = true;
    this.redis.disconnect();
  }
}

async function connect(dial: Dial, config: DestinationConfig, timeoutMs: number): Promise<BrokerConnection> {
  const { default: IORedis } = await import('ioredis');
  const db = Number(dial.path.slice(1) || 0);
  const redis = new IORedis({
    host: dial.address,
    port: dial.port,
    db: Number.isInteger(db) ? db : 0,
    username: field(config, 'username'),
    password: field(config, 'password'),
    tls: dial.tls ? { servername: dial.host } : undefined,
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    throw error;
  }
  return new RedisStreamConnection(redis);
}

export const REDIS_STREAM: BrokerType = {
  name: 'redis_stream',
  description:
    'Appends each delivery to a Redis stream (XADD) as a body field beside the Standard Webhooks headers, ' +
    'trimmed to about maxlen entries when set: the entry id is success.',
  configSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['url', 'stream'],
    properties: {
      url: urlSchema(SCHEMES, 'rediss://redis.example.com:6379/0'),
      stream: { ...NAME_STRING, minLength: 1, description: 'The stream key.' },
      maxlen: {
        type: 'integer',
        minimum: 1,
        description: 'XADD MAXLEN ~ this: the stream is trimmed to about this many entries.',
      },
      username: NAME_STRING,
      password: SECRET_STRING,
    },
  },
  schemes: SCHEMES,
  defaultPort: 6379,
  connectionFields: ['username', 'password'],
  target: (config) => `${String(config.url)} stream "${String(config.stream)}"`,
  connect,
};
