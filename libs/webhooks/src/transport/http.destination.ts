import { Injectable } from '@nestjs/common';
import { Attempt, Destination, DestinationEndpoint, Message } from './destination';
import { OAuth2Tokens } from './oauth2-tokens';
import { WebhookSender } from './webhook-sender';

/**
 * Signed HTTPS POSTs (Standard Webhooks), through the guarded dispatcher of WebhookSender, with the
 * endpoint's static headers and Authorization (basic, bearer, or an OAuth2 client-credentials token,
 * fetched again once when the receiver answers 401 to it).
 */
@Injectable()
export class HttpDestination implements Destination {
  constructor(
    private readonly sender: WebhookSender,
    private readonly tokens: OAuth2Tokens,
  ) {}

  /**
   * Loads the HTTP client now: loading it at the first send would hold a fresh worker's first attempts and
   * then let them out together, bunching sends a rate limit had spaced.
   */
  async prepare(): Promise<void> {
    await this.sender.prepare();
  }

  async send(endpoint: DestinationEndpoint, { eventId, body, traceparent }: Message): Promise<Attempt> {
    // A secret no key opens is retried on the schedule: setting APP_KEY_PREVIOUS recovers the delivery.
    if (endpoint.unreadableSecret)
      return this.sender.unsent(endpoint.url, body, `secret: ${endpoint.unreadableSecret}`, false);
    const auth = endpoint.auth;
    const send = (authorization?: string) =>
      this.sender.sendSigned(endpoint.url, endpoint.secrets, eventId, body, {
        ...endpoint.headers,
        ...(traceparent ? { traceparent } : {}),
        ...(authorization ? { authorization } : {}),
      });
    switch (auth?.type) {
      case 'basic':
        return send(`Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}`);
      case 'bearer':
        return send(`Bearer ${auth.token}`);
      case 'oauth2_client_credentials': {
        let answer = await this.tokens.token(endpoint.uuid, auth);
        if ('error' in answer) return this.sender.unsent(endpoint.url, body, `auth: ${answer.error}`, false);
        const attempt = await send(`Bearer ${answer.token}`);
        if (attempt.response_status !== 401) return attempt;
        answer = await this.tokens.refresh(endpoint.uuid, auth, answer.token);
        if ('error' in answer) return this.sender.unsent(endpoint.url, body, `auth: ${answer.error}`, false);
        return send(`Bearer ${answer.token}`);
      }
      default:
        return send();
    }
  }

  abort(): Promise<void> {
    return this.sender.abort();
  }
}
