import { Processor, WorkerHost } from '@nestjs/bullmq';
import { BeforeApplicationShutdown, Inject, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { APP_CONFIG, AppConfig, OutageMonitor, unavailableDependency } from '@wharf/core';
import { DelayedError, Job } from 'bullmq';
import { DataSource } from 'typeorm';
import { DELIVERY_QUEUE, DeliveryJobData } from '../delivery/delivery-queue';
import { WebhookSender } from '../delivery/webhook-sender';
import { AttemptWriter } from './attempt-writer';
import { DeliveryAdmitter } from './delivery.admitter';
import { DeliveryMetrics } from './delivery-metrics';
import { EndpointCache } from './endpoint-cache';
import { EndpointRateLimiter } from './endpoint-rate-limiter';
import { InFlightJobs } from './in-flight-jobs';
import { maxAttempts, retryDelay } from './retry-schedule';

/**
 * A job waiting for a rate-limit slot goes through the delayed set, and Redis wakes blocked clients only
 * on its server tick (hz 10: every 100 ms), so it comes back up to ~100 ms late. Woken this much before
 * its slot, it waits the rest in place (at most SLEEP_FOR_SLOT_MS of a worker slot) and sends on time; woken
 * at the slot it missed it by more than RESERVATION_GRACE_MS half the time and had to queue again.
 */
const WAKE_BEFORE_SLOT_MS = 120;
const SLEEP_FOR_SLOT_MS = 150;

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
export class DeliveryProcessor
  extends WorkerHost
  implements OnApplicationBootstrap, BeforeApplicationShutdown
{
  private readonly logger = new Logger('delivery');
  private readonly inFlight = new InFlightJobs();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly sender: WebhookSender,
    private readonly endpoints: EndpointCache,
    private readonly attempts: AttemptWriter,
    private readonly admitter: DeliveryAdmitter,
    private readonly rateLimiter: EndpointRateLimiter,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly outages: OutageMonitor,
    private readonly metrics: DeliveryMetrics,
  ) {
    super();
  }

  onApplicationBootstrap(): void {
    this.worker.concurrency = this.config.webhooks.concurrency;
    // The BullMQ worker talks only to Redis: its connection errors are a Redis outage, logged once.
    this.worker.on('error', (error) => {
      if (unavailableDependency(error)) this.outages.failed('redis', error);
      else this.logger.error(`queue worker: ${error.message}`);
    });
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.inFlight.drain(this.worker, this.config.shutdownTimeoutMs, this.logger, () => {
      this.attempts.abandon();
      void this.sender.abort();
    });
  }

  async process(job: Job<DeliveryJobData>, token?: string): Promise<void> {
    this.inFlight.track(job, token);
    try {
      await this.deliver(job, token);
    } finally {
      this.inFlight.untrack(job);
    }
  }

  private async deliver(job: Job<DeliveryJobData>, token?: string): Promise<void> {
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
      const { slot, waitMs } = await this.rateLimiter.reserve(
        endpoint.uuid,
        endpoint.rateLimitPerSecond,
        data.rateSlot,
      );
      if (waitMs > SLEEP_FOR_SLOT_MS) {
        // Back to the delayed set with its reservation: the job holds no worker slot while it waits.
        await job.updateData({ ...data, rateSlot: slot });
        await job.moveToDelayed(Date.now() + waitMs - WAKE_BEFORE_SLOT_MS, token);
        throw new DelayedError();
      }
      if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
    const attempt = data.attempts + job.attemptsMade + 1;
    // A secret no key opens is retried on the schedule: setting APP_KEY_PREVIOUS recovers the delivery.
    this.metrics.started(data.endpoint);
    const result = endpoint.unreadableSecret
      ? this.sender.unsent(endpoint.url, data.body, `secret: ${endpoint.unreadableSecret}`, false)
      : await this.sender
          .sendSigned(endpoint.url, this.endpoints.secrets(endpoint), data.eventId, data.body)
          .catch((error: unknown) => {
            this.metrics.finished(data.endpoint);
            throw error;
          });
    const schedule = this.config.webhooks.retrySchedule;
    const final = result.status === 'successful' || result.permanent || attempt >= maxAttempts(schedule);
    const outcome = result.status === 'successful' ? 'successful' : final ? 'failed' : 'retrying';
    this.metrics.finished(data.endpoint, outcome, result.duration_ms / 1000);
    const delayMs = final ? 0 : retryDelay(schedule, attempt, result.retryAfterMs);
    // Handed back to the queue by a shutdown timeout: the worker that takes it over records its attempt.
    if (this.inFlight.isReleased(job)) throw new Error('released to the queue on shutdown');
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
