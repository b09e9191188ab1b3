import type { ChannelModel, ConfirmChannel, Message } from 'amqplib';
import { BROKER_HEARTBEAT_S } from '../tuning';
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

const SCHEMES = { plain: 'amqp', tls: 'amqps' };

function routingKey(config: DestinationConfig, event: string): string {
  return field(config, 'routing_key') ?? event;
}

/**
 * One connection and its confirm channel. Messages are published `mandatory`: one no queue is bound for
 * comes back (basic.return) before its ack, and counts as a failed attempt.
 */
class RabbitmqConnection implements BrokerConnection {
  broken = false;
  private closedBy?: string;
  /**
   * Returned messages by the correlation id of their publish (one per publish, so two of one event, e.g. for
   * two endpoints with the same config, are told apart): the return arrives before its confirm.
   */
  private readonly returned = new Map<string, string>();
  private published = 0;

  constructor(
    private readonly model: ChannelModel,
    private readonly channel: ConfirmChannel,
  ) {
    const breakOff = () => (this.broken = true);
    model.on('error', breakOff).on('close', breakOff);
    // The server's reason (e.g. 404 no exchange) comes as an error just before the close that fails the
    // publishes awaiting a confirm: they report it rather than "channel closed".
    channel.on('error', (error: unknown) => ((this.closedBy = brokerError(error)), breakOff()));
    channel.on('close', breakOff);
    channel.on('return', (message: Message) => {
      const { replyCode, replyText } = message.fields as unknown as Record<string, string>;
      this.returned.set(String(message.properties.correlationId), `${replyCode} ${replyText}`);
    });
  }

  publish(config: DestinationConfig, message: Publication): Promise<BrokerAnswer> {
    const exchange = typeof config.exchange === 'string' ? config.exchange : '';
    const key = routingKey(config, message.event);
    const { 'content-type': contentType, ...headers } = message.headers;
    const returned = String(++this.published);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        // No confirm in time: the connection may be stuck, so the next attempt opens a new one.
        this.broken = true;
        resolve(failed('timeout'));
      }, message.timeoutMs);
      const confirmed = (error: unknown) => {
        clearTimeout(timer);
        const reply = this.returned.get(returned);
        this.returned.delete(returned);
        if (error) resolve(failed(this.closedBy ?? `nack: ${brokerError(error)}`));
        else if (reply) resolve(failed(`unroutable: the broker returned the message (${reply})`, 'returned'));
        else resolve(ok('ack', { confirm: 'ack', exchange, routing_key: key }));
      };
      try {
        this.channel.publish(
          exchange,
          key,
          Buffer.from(message.body),
          {
            mandatory: true,
            persistent: true,
            contentType,
            messageId: message.eventId,
            correlationId: returned,
            timestamp: Number(headers['webhook-timestamp']),
            type: message.event,
            headers,
          },
          confirmed,
        );
      } catch (error) {
        clearTimeout(timer);
        this.broken = true;
        resolve(failed(brokerError(error)));
      }
    });
  }

  async close(): Promise<void> {
    this.broken = true;
    await this.model.close().catch(() => undefined);
  }
}

async function connect(dial: Dial, config: DestinationConfig, timeoutMs: number): Promise<BrokerConnection> {
  const amqp = await import('amqplib');
  const model = await amqp.connect(
    {
      protocol: dial.tls ? 'amqps' : 'amqp',
      hostname: dial.address,
      port: dial.port,
      username: field(config, 'username'),
      password: field(config, 'password'),
      vhost: dial.path.length > 1 ? decodeURIComponent(dial.path.slice(1)) : '/',
      heartbeat: BROKER_HEARTBEAT_S,
    },
    { servername: dial.host, timeout: timeoutMs },
  );
  // A failure after the socket opened must not leave it unhandled or open.
  model.on('error', () => undefined);
  try {
    return new RabbitmqConnection(model, await model.createConfirmChannel());
  } catch (error) {
    await model.close().catch(() => undefined);
    throw error;
  }
}

export const RABBITMQ: BrokerType = {
  name: 'rabbitmq',
  description:
    "Publishes each delivery to a RabbitMQ exchange with publisher confirms: the broker's ack is success; " +
    'a nack, or the message returned because no queue is bound for it (mandatory), is a failed attempt.',
  configSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['url', 'exchange'],
    properties: {
      url: urlSchema(SCHEMES, 'amqp://rabbitmq.example.com:5672/vhost'),
      exchange: { ...NAME_STRING, description: 'The exchange published to ("" is the default exchange).' },
      routing_key: { ...NAME_STRING, description: 'The routing key; default: the event name.' },
      username: { ...NAME_STRING, description: 'Default: guest.' },
      password: { ...SECRET_STRING, description: 'Default: guest.' },
    },
  },
  schemes: SCHEMES,
  defaultPort: 5672,
  connectionFields: ['username', 'password'],
  target: (config, event) =>
    `${String(config.url)} exchange "${String(config.exchange)}" routing key "${routingKey(config, event)}"`,
  connect,
};
