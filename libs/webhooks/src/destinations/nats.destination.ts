import type { JetStreamClient, MsgHdrs, NatsConnection as Nats, TlsOptions } from 'nats';
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

const SCHEMES = { plain: 'nats', tls: 'tls' };

const subject = (config: DestinationConfig, event: string) => field(config, 'subject') ?? `wharf.${event}`;

/**
 * A connection that never reconnects by itself: once it closes it is broken, and the next attempt opens a
 * new one (through the target policy again). Each message carries the event id as Nats-Msg-Id, so a retry
 * of a publish whose ack was lost is stored once (within the stream's duplicate window).
 */
class NatsConnection implements BrokerConnection {
  broken = false;
  private readonly js: JetStreamClient;

  constructor(
    private readonly nc: Nats,
    private readonly headers: () => MsgHdrs,
  ) {
    this.js = nc.jetstream();
    void nc.closed().then(() => (this.broken = true));
  }

  async publish(config: DestinationConfig, message: Publication): Promise<BrokerAnswer> {
    const to = subject(config, message.event);
    const headers = this.headers();
    for (const name in message.headers) headers.set(name, message.headers[name]);
    try {
      const ack = await this.js.publish(to, message.body, {
        msgID: message.eventId,
        headers,
        timeout: message.timeoutMs,
      });
      return ok(`stream ${ack.stream} seq ${ack.seq}${ack.duplicate ? ' (duplicate)' : ''}`, {
        stream: ack.stream,
        seq: String(ack.seq),
        duplicate: String(ack.duplicate),
      });
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === '503') return failed(`no stream for subject "${to}"`, 'no responders');
      if (code === 'TIMEOUT') return failed('timeout');
      return failed(brokerError(error));
    }
  }

  async close(): Promise<void> {
    this.broken = true;
    if (!this.nc.isClosed()) await this.nc.close().catch(() => undefined);
  }
}

async function connect(dial: Dial, config: DestinationConfig, timeoutMs: number): Promise<BrokerConnection> {
  const nats = await import('nats');
  const host = dial.address.includes(':') ? `[${dial.address}]` : dial.address;
  const nc = await nats.connect({
    servers: `${host}:${dial.port}`,
    user: field(config, 'username'),
    pass: field(config, 'password'),
    token: field(config, 'token'),
    // The client passes these on to tls.connect: the certificate is checked against the URL's host name.
    tls: dial.tls ? ({ servername: dial.host } as TlsOptions) : undefined,
    // The checked address only: no reconnecting on its own, no servers the cluster gossips.
    reconnect: false,
    ignoreClusterUpdates: true,
    timeout: timeoutMs,
    name: 'wharf',
  });
  return new NatsConnection(nc, nats.headers);
}

export const NATS: BrokerType = {
  name: 'nats',
  description:
    'Publishes each delivery to NATS JetStream: the ack of the stream (its name and sequence) is success; ' +
    'a subject no stream captures is a failed attempt. The event id is the Nats-Msg-Id, so a retried ' +
    'publish is stored once.',
  configSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['url'],
    properties: {
      url: urlSchema(SCHEMES, 'nats://nats.example.com:4222'),
      subject: { ...NAME_STRING, description: 'The subject; default: wharf.<event>.' },
      username: NAME_STRING,
      password: SECRET_STRING,
      token: { ...SECRET_STRING, description: 'An auth token, instead of username and password.' },
    },
  },
  schemes: SCHEMES,
  defaultPort: 4222,
  connectionFields: ['username', 'password', 'token'],
  target: (config, event) => `${String(config.url)} subject "${subject(config, event)}"`,
  connect,
};
