import { randomBytes } from 'node:crypto';
import type { MqttClient } from 'mqtt';
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

const SCHEMES = { plain: 'mqtt', tls: 'mqtts' };

const topic = (config: DestinationConfig, event: string) => field(config, 'topic') ?? `wharf/${event}`;

/**
 * An MQTT 5 client that never reconnects by itself (the next attempt opens a new one). Messages go at QoS 1
 * with the Standard Webhooks headers as user properties; the PUBACK is success.
 */
class MqttConnection implements BrokerConnection {
  broken = false;

  constructor(private readonly client: MqttClient) {
    const breakOff = () => {
      this.broken = true;
      // Ends the client so the callbacks of QoS 1 messages still waiting for a PUBACK fail now.
      if (!client.disconnecting) client.end(true);
    };
    client.on('close', breakOff).on('error', breakOff);
  }

  async publish(config: DestinationConfig, message: Publication): Promise<BrokerAnswer> {
    const to = topic(config, message.event);
    const { 'content-type': contentType, ...userProperties } = message.headers;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<BrokerAnswer>((resolve) => {
      timer = setTimeout(() => {
        this.broken = true;
        resolve(failed('timeout'));
      }, message.timeoutMs);
    });
    const published = this.client
      .publishAsync(to, message.body, { qos: 1, properties: { contentType, userProperties } })
      .then((packet) => {
        const id = packet?.messageId;
        return ok(`PUBACK${id === undefined ? '' : ` (packet ${id})`}`, {
          puback: 'ok',
          topic: to,
          ...(id === undefined ? {} : { packet_id: String(id) }),
        });
      })
      .catch((error: unknown) => failed(brokerError(error)));
    try {
      return await Promise.race([published, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    this.broken = true;
    await this.client.endAsync(true).catch(() => undefined);
  }
}

async function connect(dial: Dial, config: DestinationConfig, timeoutMs: number): Promise<BrokerConnection> {
  const mqtt = await import('mqtt');
  const client = await mqtt.connectAsync({
    host: dial.address,
    port: dial.port,
    protocol: dial.tls ? ('mqtts' as const) : ('mqtt' as const),
    servername: dial.host,
    protocolVersion: 5 as const,
    username: field(config, 'username'),
    password: field(config, 'password'),
    clientId: `wharf_${randomBytes(8).toString('hex')}`,
    clean: true,
    reconnectPeriod: 0,
    connectTimeout: timeoutMs,
  });
  return new MqttConnection(client);
}

export const MQTT: BrokerType = {
  name: 'mqtt',
  description:
    'Publishes each delivery to an MQTT 5 broker at QoS 1, with the Standard Webhooks headers as user ' +
    "properties: the broker's PUBACK is success.",
  configSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['url'],
    properties: {
      url: urlSchema(SCHEMES, 'mqtts://mqtt.example.com:8883'),
      topic: { ...NAME_STRING, description: 'The topic; default: wharf/<event>.' },
      username: NAME_STRING,
      password: SECRET_STRING,
    },
  },
  schemes: SCHEMES,
  defaultPort: 1883,
  connectionFields: ['username', 'password'],
  target: (config, event) => `${String(config.url)} topic "${topic(config, event)}"`,
  connect,
};
