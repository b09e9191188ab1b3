import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { APP_CONFIG, ApiError, AppConfig, RequestContext, ResourceServices } from '@wharf/core';
import { Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import { DELIVERY_QUEUE, enqueueDeliveries } from '../delivery/delivery-queue';
import { WebhookEndpointsService } from '../endpoints/webhook-endpoints.service';
import { WebhookRequestLog } from '../request-logs/webhook-request-log.entity';
import { readActionBody } from './action-body';
import { QueuedDelivery, deliveryRequeue } from './delivery-requeue';
import { RecoverDto } from './recover.dto';

const ENQUEUE_BATCH = 500;

/**
 * Sends deliveries again through the queue, with their original envelope and `webhook-id`: every failed
 * delivery of an endpoint in a time window (recover), or the delivery behind one request-log row (resend).
 * Each gets one more attempt, numbered after those already made.
 */
@Injectable()
export class DeliveryRecoveryService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @InjectQueue(DELIVERY_QUEUE) private readonly queue: Queue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly endpoints: WebhookEndpointsService,
    private readonly services: ResourceServices,
  ) {}

  /** `POST /webhook-endpoints/:uuid/recover {since, until?}` */
  async recover(uuid: string, body: unknown) {
    const { since, until } = readActionBody(RecoverDto, body, 'a recover request');
    const from = new Date(since);
    const to = until === undefined ? null : new Date(until);
    if (to && to < from) throw ApiError.invalid('/until', 'until must not be before since.');
    await this.requireEnabled(uuid);
    const deliveries = await deliveryRequeue.failedInWindow(
      this.dataSource,
      RequestContext.companyUuid(),
      uuid,
      from,
      to,
    );
    return this.enqueue(deliveries);
  }

  /** `POST /webhook-request-logs/:uuid/resend`: that event to that endpoint again, same `webhook-id`. */
  async resend(logUuid: string) {
    const { webhook_request_log: log } = (await this.services.for(WebhookRequestLog).find(logUuid)) as {
      webhook_request_log: { test: boolean; webhook_endpoint_uuid: string; event_id: string };
    };
    if (log.test) {
      throw ApiError.invalid(
        '/webhook_request_log/test',
        'A test send is not queued: send a new test event.',
      );
    }
    await this.requireEnabled(log.webhook_endpoint_uuid);
    const delivery = await deliveryRequeue.one(
      this.dataSource,
      RequestContext.companyUuid(),
      log.webhook_endpoint_uuid,
      log.event_id,
    );
    if (!delivery) {
      throw ApiError.invalid(
        '/webhook_request_log',
        'This event is no longer stored, so it cannot be resent.',
      );
    }
    return this.enqueue([delivery]);
  }

  private async requireEnabled(endpointUuid: string): Promise<void> {
    const endpoint = await this.endpoints.stored(endpointUuid);
    if (endpoint.status !== 'enabled') {
      throw ApiError.invalid(
        '/webhook_endpoint/status',
        'The endpoint is disabled: enable it first, or its deliveries would fail again at once.',
      );
    }
  }

  private async enqueue(deliveries: QueuedDelivery[]) {
    const maxAttempts = this.config.webhooks.retrySchedule.length + 1;
    for (let i = 0; i < deliveries.length; i += ENQUEUE_BATCH) {
      const batch = deliveries.slice(i, i + ENQUEUE_BATCH).map((delivery) => delivery.uuid);
      await enqueueDeliveries(this.dataSource, this.queue, batch, maxAttempts);
    }
    return { webhook_deliveries: deliveries, meta: { queued: deliveries.length } };
  }
}
