import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { APP_CONFIG, AppConfig } from '@wharf/core';
import { DelayedError, Job } from 'bullmq';
import { DataSource } from 'typeorm';
import { DELIVERY_QUEUE, DeliveryJobData } from '../delivery/delivery-queue';
import { WebhookSender } from '../delivery/webhook-sender';
import { AttemptWriter } from './attempt-writer';
import { DeliveryAdmitter } from './delivery.admitter';
import { EndpointCache } from './endpoint-cache';
import { EndpointRateLimiter } from './endpoint-rate-limiter';
import { maxAttempts, retryDelay } from './retry-schedule';

/**
 * Delivers one webhook attempt per job (worker process only). The job carries the envelope; attempt
 * numbers start from the count PostgreSQL had when the delivery was admitted, so a delivery re-enqueued
 * after Redis lost its jobs keeps counting where it was. A failed attempt is recorded with its next
 * attempt time and the job completes: the delivery waits in PostgreSQL, holding neither a worker slot nor
 * one of its endpoint's, until the DeliveryAdmitter admits it again. Recording an attempt admits the
 * endpoint's next delivery into the slot it frees.
 */
@Processor(DELIVERY_QUEUE, {
  lockDuration: 10_000,
  stalledInterval: 5_000,
  maxStalledCount: 10,
})
export class DeliveryProcessor extends WorkerHost implements OnApplicationBootstrap {
  private readonly logger = new Logger('delivery');

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly sender: WebhookSender,
    private readonly endpoints: EndpointCache,
    private readonly attempts: AttemptWriter,
    private readonly admitter: DeliveryAdmitter,
    private readonly rateLimiter: EndpointRateLimiter,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super();
  }

  onApplicationBootstrap(): void {
    this.worker.concurrency = this.config.webhooks.concurrency;
  }

  async process(job: Job<DeliveryJobData>, token?: string): Promise<void> {
    const data = job.data;
    const endpoint = await this.endpoints.get(data.endpoint, data.endpointVersion);
    if (!endpoint || endpoint.status !== 'enabled') {
      await this.dataSource.query(
        `UPDATE webhook_deliveries SET status = 'failed', admitted_at = NULL, updated_at = now()
         WHERE uuid = $1 AND status = 'pending'`,
        [data.delivery],
      );
      this.admitter.admit([data.endpoint]);
      return;
    }
    if (endpoint.rateLimitPerSecond !== null) {
      const waitMs = await this.rateLimiter.take(endpoint.uuid, endpoint.rateLimitPerSecond);
      if (waitMs > 0) {
        // Back to the delayed set: the job holds no worker slot while it waits for its send slot.
        await job.moveToDelayed(Date.now() + waitMs, token);
        throw new DelayedError();
      }
    }
    const attempt = data.attempts + job.attemptsMade + 1;
    // A secret no key opens is retried on the schedule: setting APP_KEY_PREVIOUS recovers the delivery.
    const result = endpoint.unreadableSecret
      ? this.sender.unsent(endpoint.url, data.body, `secret: ${endpoint.unreadableSecret}`, false)
      : await this.sender.sendSigned(endpoint.url, this.endpoints.secrets(endpoint), data.eventId, data.body);
    const schedule = this.config.webhooks.retrySchedule;
    const final = result.status === 'successful' || result.permanent || attempt >= maxAttempts(schedule);
    const delayMs = final ? 0 : retryDelay(schedule, attempt, result.retryAfterMs);
    await this.attempts.record({
      delivery: {
        uuid: data.delivery,
        company_uuid: data.company,
        endpoint_uuid: data.endpoint,
        event_id: data.eventId,
        event: data.event,
      },
      attempt,
      result,
      outcome: result.status === 'successful' ? 'successful' : final ? 'failed' : 'pending',
      nextAttemptInMs: delayMs,
    });
    if (result.status !== 'successful') {
      this.logger.log({
        msg: 'delivery attempt failed',
        delivery: data.delivery,
        attempt,
        error: result.error,
        status: result.response_status,
        final,
      });
    }
  }
}
