import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ApiError, BODY_POINTER, RequestContext, ResourceServices, attributePointer } from '@wharf/core';
import { DataSource } from 'typeorm';
import { DeliveryStore } from '../store/delivery.store';
import { QueuedDelivery } from '../store/requeue.sql';
import { ADMIT_PAYLOAD, OUTBOX_CHANNEL } from '../outbox/outbox.writer';
import { WebhookEndpointsService } from '../endpoints/webhook-endpoints.service';
import { EventVisibility } from '../events/event-visibility';
import { WebhookRequestLog } from '../request-logs/webhook-request-log.entity';
import { readActionBody } from './action-body';
import { RecoverDto } from './recover.dto';

/**
 * Sends deliveries again through the queue, with their original envelope and `webhook-id`: every failed
 * delivery of an endpoint in a time window (recover), or the delivery behind one request-log row (resend).
 * Each gets one more attempt, numbered after those already made.
 */
@Injectable()
export class DeliveryRecoveryService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly store: DeliveryStore,
    private readonly endpoints: WebhookEndpointsService,
    private readonly services: ResourceServices,
    private readonly visibility: EventVisibility,
  ) {}

  /** `POST /webhook-endpoints/:uuid/recover {since, until?}` */
  async recover(uuid: string, body: unknown) {
    const { since, until } = readActionBody(RecoverDto, body, 'a recover request');
    const from = new Date(since);
    const to = until === undefined ? null : new Date(until);
    if (to && to < from) throw ApiError.invalid(attributePointer('until'), 'until must not be before since.');
    await this.requireEnabled(uuid);
    const deliveries = await this.store.requeueFailed(RequestContext.companyUuid(), uuid, from, to);
    return this.enqueue(deliveries, this.visibility.readableSet());
  }

  /** `POST /webhook-request-logs/:uuid/resend`: that event to that endpoint again, same `webhook-id`. */
  async resend(logUuid: string) {
    const { webhook_request_log: log } = (await this.services.for(WebhookRequestLog).find(logUuid)) as {
      webhook_request_log: { test: boolean; webhook_endpoint_uuid: string; event_id: string };
    };
    if (log.test) {
      throw ApiError.invalid(attributePointer('test'), 'A test send is not queued: send a new test event.');
    }
    await this.requireEnabled(log.webhook_endpoint_uuid);
    const delivery = await this.store.requeueOne(
      RequestContext.companyUuid(),
      log.webhook_endpoint_uuid,
      log.event_id,
    );
    if (!delivery) {
      throw ApiError.invalid(BODY_POINTER, 'This event is no longer stored, so it cannot be resent.');
    }
    return this.enqueue([delivery]);
  }

  private async requireEnabled(endpointUuid: string): Promise<void> {
    const endpoint = await this.endpoints.stored(endpointUuid);
    if (endpoint.status !== 'enabled') {
      throw ApiError.invalid(
        attributePointer('status'),
        'The endpoint is disabled: enable it first, or its deliveries would fail again at once.',
      );
    }
  }

  /**
   * The deliveries wait in PostgreSQL; the workers admit them within their endpoint's limits. The answer
   * lists those of the events the caller may read (`readable`, undefined: all); `queued` counts them all.
   */
  private async enqueue(deliveries: QueuedDelivery[], readable?: ReadonlySet<string>) {
    if (deliveries.length) {
      await this.dataSource.query('SELECT pg_notify($1, $2)', [OUTBOX_CHANNEL, ADMIT_PAYLOAD]);
    }
    const shown = readable ? deliveries.filter((delivery) => readable.has(delivery.event)) : deliveries;
    return { webhook_deliveries: shown, meta: { queued: deliveries.length } };
  }
}
