import { Injectable } from '@nestjs/common';
import { Attempt, Destination, DestinationEndpoint, Message } from './destination';
import { WebhookSender } from './webhook-sender';

/** Signed HTTPS POSTs (Standard Webhooks), through the guarded dispatcher of WebhookSender. */
@Injectable()
export class HttpDestination implements Destination {
  constructor(private readonly sender: WebhookSender) {}

  /**
   * Loads the HTTP client now: loading it at the first send would hold a fresh worker's first attempts and
   * then let them out together, bunching sends a rate limit had spaced.
   */
  async prepare(): Promise<void> {
    await this.sender.prepare();
  }

  send(endpoint: DestinationEndpoint, { eventId, body }: Message): Promise<Attempt> {
    // A secret no key opens is retried on the schedule: setting APP_KEY_PREVIOUS recovers the delivery.
    if (endpoint.unreadableSecret)
      return Promise.resolve(
        this.sender.unsent(endpoint.url, body, `secret: ${endpoint.unreadableSecret}`, false),
      );
    return this.sender.sendSigned(endpoint.url, endpoint.secrets, eventId, body);
  }

  abort(): Promise<void> {
    return this.sender.abort();
  }
}
