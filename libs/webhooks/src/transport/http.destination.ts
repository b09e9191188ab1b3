import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { Attempt, Destination, DestinationEndpoint, Message } from './destination';
import { WebhookSender } from './webhook-sender';

/** Signed HTTPS POSTs (Standard Webhooks), through the guarded dispatcher of WebhookSender. */
@Injectable()
export class HttpDestination implements Destination, OnApplicationBootstrap {
  constructor(private readonly sender: WebhookSender) {}

  /** The worker is about to send: load the HTTP client now, not at its first attempts. */
  async onApplicationBootstrap(): Promise<void> {
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
