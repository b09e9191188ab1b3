import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { APP_CONFIG, AppConfig } from '@wharf/core';
import { Job } from 'bullmq';
import { DataSource } from 'typeorm';
import { DELIVERY_QUEUE } from '../delivery/delivery-queue';
import { Attempt, WebhookSender } from '../delivery/webhook-sender';
import { recordAttempt } from './attempt-recorder';
import { maxAttempts, retryDelay } from './retry-schedule';

/** Thrown to have BullMQ retry the job after `delayMs` (read by the custom backoff strategy). */
export class RetryLater extends Error {
  constructor(readonly delayMs: number) {
    super(`retry in ${delayMs} ms`);
  }
}

export const backoffStrategy = (_attemptsMade: number, _type?: string, error?: Error) =>
  error instanceof RetryLater ? error.delayMs : 1000;

interface DeliveryRow {
  uuid: string;
  company_uuid: string;
  status: string;
  attempts: number;
  event_id: string;
  event: string;
  body: string;
  endpoint_uuid: string;
  endpoint_status: string;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
}

/**
 * Delivers one webhook attempt per job (worker process only). Attempt numbers come from PostgreSQL,
 * not from the job, so a delivery re-enqueued after Redis lost its jobs keeps counting where it was.
 */
@Processor(DELIVERY_QUEUE, {
  settings: { backoffStrategy },
  lockDuration: 10_000,
  stalledInterval: 5_000,
  maxStalledCount: 10,
})
export class DeliveryProcessor extends WorkerHost implements OnApplicationBootstrap {
  private readonly logger = new Logger('delivery');

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly sender: WebhookSender,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super();
  }

  onApplicationBootstrap(): void {
    this.worker.concurrency = this.config.webhooks.concurrency;
  }

  async process(job: Job<{ delivery: string }>): Promise<void> {
    const [delivery]: DeliveryRow[] = await this.dataSource.query(
      `SELECT d.uuid, d.company_uuid, d.status, d.attempts, e.event_id, e.name AS event, e.payload::text AS body,
              ep.uuid AS endpoint_uuid, ep.status AS endpoint_status, ep.url, ep.secret, ep.previous_secret,
              ep.previous_secret_expires_at
       FROM webhook_deliveries d
       JOIN webhook_events e ON e.event_id = d.event_id
       JOIN webhook_endpoints ep ON ep.uuid = d.webhook_endpoint_uuid
       WHERE d.uuid = $1`,
      [job.data.delivery],
    );
    if (!delivery || delivery.status !== 'pending') return;
    if (delivery.endpoint_status !== 'enabled') {
      await this.dataSource.query(
        `UPDATE webhook_deliveries SET status = 'failed', updated_at = now() WHERE uuid = $1`,
        [delivery.uuid],
      );
      return;
    }
    const attempt = delivery.attempts + 1;
    const result: Attempt = await this.sender.send(delivery, delivery.event_id, delivery.body);
    const schedule = this.config.webhooks.retrySchedule;
    const final = result.status === 'successful' || result.permanent || attempt >= maxAttempts(schedule);
    const delayMs = final ? 0 : retryDelay(schedule, attempt, result.retryAfterMs);
    await recordAttempt(this.dataSource, this.config, {
      delivery: {
        uuid: delivery.uuid,
        company_uuid: delivery.company_uuid,
        endpoint_uuid: delivery.endpoint_uuid,
        event_id: delivery.event_id,
        event: delivery.event,
      },
      attempt,
      result,
      outcome: result.status === 'successful' ? 'successful' : final ? 'failed' : 'pending',
      nextAttemptInMs: delayMs,
    });
    if (result.status !== 'successful') {
      this.logger.log({
        msg: 'delivery attempt failed',
        delivery: delivery.uuid,
        attempt,
        error: result.error,
        status: result.response_status,
        final,
      });
    }
    if (!final) throw new RetryLater(delayMs);
  }
}
