import { targetPolicyOf } from '../transport/target-policy';
import { createHash } from 'node:crypto';
import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@wharf/core';
import { BROKER_CONNECTIONS, BROKER_IDLE_MS } from '../tuning';
import { BlockedTargetError } from '../transport/blocked-target.error';
import { Attempt, DestinationEndpoint, Message } from '../transport/destination';
import { REDACTED } from '../transport/endpoint-auth';
import { signedHeaders } from '../transport/signature';
import { brokerError } from './broker-error';
import { BrokerUrl, brokerUrlRefusal, dialFor, parseBrokerUrl } from './broker-target';
import { ConnectionPool } from './connection-pool';
import { BrokerAnswer, BrokerType, DestinationConfig, failed } from './destination-type';
import { BROKER_TYPES, secretFields } from './destination-types';

/**
 * Publishes deliveries to brokers (RabbitMQ, NATS JetStream, MQTT, Redis streams) with the same envelope
 * and signature as a webhook, over pooled connections: one per (type, target, credentials). Each attempt
 * becomes a request-log row: the target, the headers and body published, and the broker's answer.
 */
@Injectable()
export class BrokerDestinations implements OnApplicationShutdown {
  private readonly pool = new ConnectionPool(BROKER_CONNECTIONS, BROKER_IDLE_MS);
  private readonly policy = targetPolicyOf(this.config);
  /** The pool key of each config object the endpoint cache holds: hashed once, not per send. */
  private readonly keys = new WeakMap<DestinationConfig, string>();

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  async send(endpoint: DestinationEndpoint, { event, eventId, body }: Message): Promise<Attempt> {
    const type = BROKER_TYPES.get(endpoint.type ?? '');
    const config = endpoint.config ?? {};
    const sentAt = new Date();
    const base = { request_body: body, response_status: null, sent_at: sentAt };
    if (!type || endpoint.unreadableSecret) {
      const error = type
        ? `secret: ${endpoint.unreadableSecret}`
        : `unknown destination type ${endpoint.type}`;
      // No readable config or no known type: the endpoint's url (its config's) is all there is to name.
      const answer = { ...failed(error), url: endpoint.url };
      return { ...base, ...this.logged(answer, {}), duration_ms: 0, permanent: false };
    }
    const { headers, logged } = signedHeaders(endpoint.secrets, { id: eventId, body, at: sentAt });
    const timeoutMs = this.config.webhooks.timeoutMs;
    const started = performance.now();
    let answer: BrokerAnswer;
    let permanent = false;
    try {
      answer = await this.pool.use(
        this.keyOf(type, config),
        () => this.open(type, config),
        (connection) =>
          connection.publish(config, {
            event,
            eventId,
            body,
            headers,
            timeoutMs: Math.max(1, timeoutMs - (performance.now() - started)),
          }),
      );
    } catch (error) {
      permanent = error instanceof BlockedTargetError;
      answer = failed(permanent ? `blocked: ${(error as Error).message}` : brokerError(error));
    }
    if (answer.error) answer.error = scrub(answer.error, type, config);
    return {
      ...base,
      ...this.logged({ ...answer, url: type.target(config, event) }, logged),
      duration_ms: Math.round(performance.now() - started),
      permanent,
    };
  }

  private logged(answer: BrokerAnswer & { url: string }, headers: Record<string, string>) {
    return {
      url: answer.url,
      request_headers: headers,
      response_headers: answer.fields,
      response_body: answer.answer,
      error: answer.error,
      status: answer.ok ? ('successful' as const) : ('failed' as const),
    };
  }

  /** Opens a connection to the address the target policy allowed (resolved and checked now). */
  private async open(type: BrokerType, config: DestinationConfig) {
    const raw = String(config.url);
    const refusal = brokerUrlRefusal(raw, type, this.policy);
    if (refusal !== undefined) throw new BlockedTargetError(refusal);
    const url = parseBrokerUrl(raw, type) as BrokerUrl;
    const dial = await dialFor(url, this.policy);
    return type.connect(dial, config, this.config.webhooks.timeoutMs);
  }

  private keyOf(type: BrokerType, config: DestinationConfig): string {
    let key = this.keys.get(config);
    if (key === undefined) {
      const identity = [type.name, config.url, ...type.connectionFields.map((name) => config[name] ?? null)];
      key = createHash('sha256').update(JSON.stringify(identity)).digest('base64url');
      this.keys.set(config, key);
    }
    return key;
  }

  /** Connections open now (for tests and metrics). */
  get connections(): number {
    return this.pool.size;
  }

  /** Cuts every publish in flight (a shutdown that stopped waiting for them). */
  abort(): Promise<void> {
    return this.pool.closeAll(true);
  }

  /** After the worker's sends in flight are answered (beforeApplicationShutdown waited for them). */
  onApplicationShutdown(): Promise<void> {
    return this.pool.closeAll();
  }
}

/** An error line without any credential of the config in it, whatever a client library put there. */
function scrub(error: string, type: BrokerType, config: DestinationConfig): string {
  let text = error;
  for (const name of secretFields(type)) {
    const value = config[name];
    if (typeof value === 'string' && value.length >= 3) text = text.replaceAll(value, REDACTED);
  }
  return text;
}
