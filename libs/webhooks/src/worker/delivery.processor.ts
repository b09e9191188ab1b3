import { Processor, WorkerHost } from '@nestjs/bullmq';
import { BeforeApplicationShutdown, Inject, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { APP_CONFIG, AppConfig, OutageMonitor, unavailableDependency } from '@wharf/core';
import { DelayedError, Job } from 'bullmq';
import { DataSource } from 'typeorm';
import {
  BatchedDelivery,
  DELIVERY_QUEUE,
  DELIVER_BATCH,
  DeliveryBatchJobData,
  DeliveryJobData,
  unbatched,
} from '../delivery/delivery-queue';
import { Attempt, WebhookSender } from '../delivery/webhook-sender';
import { NOT_ADMITTED } from './admission-sql';
import { AnswerGroup, AttemptWriter } from './attempt-writer';
import { DeliveryAdmitter } from './delivery.admitter';
import { DeliveryMetrics } from './delivery-metrics';
import { CachedEndpoint, EndpointCache } from './endpoint-cache';
import { EndpointRateLimiter } from './endpoint-rate-limiter';
import { EndpointSendLeases } from './endpoint-send-leases';
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
 * Delivers webhook attempts (worker process only): one per job, or, for first attempts admitted together
 * to an endpoint without a rate limit, all of them in one job (see deliveryJobs). The job carries the envelope; attempt
 * numbers start from the count PostgreSQL had when the delivery was admitted, so a delivery re-enqueued
 * after Redis lost its jobs keeps counting where it was. A failed attempt is recorded with its next
 * attempt time and the job completes: the delivery waits in PostgreSQL, holding neither a worker slot nor
 * one of its endpoint's, until the DeliveryAdmitter admits it again. Recording an attempt admits the
 * endpoint's next delivery into the place in the queue it frees.
 *
 * Each send holds one of its endpoint's leases (max_in_flight across all workers, see EndpointSendLeases)
 * from just before the request until the answer. A job whose endpoint's leases are all held waits for one
 * in place, holding its worker slot: that happens to the caps' worth queued behind the first of a fast
 * endpoint (see PREFETCH_CAPS), for a few rounds of its fast answers, and otherwise only while
 * admission and leases briefly disagree (a cap lowered, a dead worker's leases not yet lapsed).
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
    private readonly leases: EndpointSendLeases,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly outages: OutageMonitor,
    private readonly metrics: DeliveryMetrics,
  ) {
    super();
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.sender.prepare();
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
      this.leases.abort();
      void this.sender.abort();
    });
  }

  async process(job: Job<DeliveryJobData | DeliveryBatchJobData>, token?: string): Promise<void> {
    const batch = job.name === DELIVER_BATCH ? (job.data as DeliveryBatchJobData).deliveries.length : 1;
    this.inFlight.track(job, token, batch);
    try {
      if (job.name === DELIVER_BATCH) await this.deliverBatch(job as Job<DeliveryBatchJobData>);
      else await this.deliver(job as Job<DeliveryJobData>, token);
    } finally {
      this.inFlight.untrack(job);
    }
  }

  private async deliver(job: Job<DeliveryJobData>, token?: string): Promise<void> {
    const data = job.data;
    const endpoint = await this.endpoints.get(data.endpoint, data.endpointVersion);
    if (!endpoint || endpoint.status !== 'enabled') return this.failDisabled(data.endpoint, [data.delivery]);
    await this.leases.take(endpoint.uuid, this.capOf(data), 1);
    try {
      await this.waitForRateSlot(job, endpoint, data, token);
    } catch (error) {
      this.leases.release(endpoint.uuid);
      throw error;
    }
    await this.attempt(job, endpoint, data);
  }

  /** The endpoint's sends at once, as admitted (a job queued by an earlier version carries none). */
  private capOf(data: { cap?: number }): number {
    return data.cap ?? this.config.webhooks.endpointConcurrency;
  }

  /**
   * Under a rate limit, waits for the job's send slot: in place when it is near, else in the delayed set
   * (throwing DelayedError), holding no worker slot or send lease meanwhile.
   */
  private async waitForRateSlot(
    job: Job<DeliveryJobData>,
    endpoint: CachedEndpoint,
    data: DeliveryJobData,
    token?: string,
  ): Promise<void> {
    if (endpoint.rateLimitPerSecond !== null) {
      let held = data.rateSlot;
      for (;;) {
        const { slot, waitMs } = await this.rateLimiter.reserve(
          endpoint.uuid,
          endpoint.rateLimitPerSecond,
          held,
        );
        if (waitMs === 0) break;
        if (waitMs > SLEEP_FOR_SLOT_MS) {
          // Back to the delayed set with its reservation: the job holds no worker slot while it waits.
          await job.updateData({ ...data, rateSlot: slot });
          await job.moveToDelayed(Date.now() + waitMs - WAKE_BEFORE_SLOT_MS, token);
          throw new DelayedError();
        }
        // The reservation is confirmed again after the sleep, as after a delay: a timer that fired late on
        // a busy event loop sent past the grace, bunched with the next slot's send (the rate-limit e2e
        // test saw 21 sends in a second against a limit of 20 under the full suite's load).
        await new Promise((resolve) => setTimeout(resolve, waitMs));
        held = slot;
      }
    }
  }

  /**
   * First attempts at one endpoint, admitted together: sent at once, each recorded as soon as it is
   * answered (its own durable record and freed slot, not waiting for the rest), the job done when all
   * are recorded. A run after the first (a crash left the job stalled, a record failed, a shutdown handed
   * it back) sends only the deliveries PostgreSQL still has admitted: those recorded before are not sent
   * again.
   */
  private async deliverBatch(job: Job<DeliveryBatchJobData>): Promise<void> {
    const data = job.data;
    const deliveries = job.attemptsStarted > 1 ? await this.stillAdmitted(data) : data.deliveries;
    if (!deliveries.length) return;
    const endpoint = await this.endpoints.get(data.endpoint, data.endpointVersion);
    if (!endpoint || endpoint.status !== 'enabled') {
      return this.failDisabled(
        data.endpoint,
        deliveries.map((d) => d.delivery),
      );
    }
    // A rate limit set since the admission: each send needs its own slot, so each delivery its own job.
    if (endpoint.rateLimitPerSecond !== null) {
      return this.admitter.enqueueEach(deliveries.map((d) => unbatched(data, d)));
    }
    const answers = new AnswerGroup(deliveries.length);
    const sends: Promise<void>[] = [];
    let taking: Error | undefined;
    try {
      // Each delivery goes as soon as it has a lease: those of the endpoint's previous job come free one
      // by one as its answers arrive.
      for (let next = 0; next < deliveries.length;) {
        const granted = await this.leases.take(endpoint.uuid, this.capOf(data), deliveries.length - next);
        for (const d of deliveries.slice(next, (next += granted)))
          sends.push(this.attempt(job, endpoint, unbatched(data, d), answers));
      }
    } catch (error) {
      taking = error as Error;
    }
    const results = await Promise.allSettled(sends);
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    if (taking) throw taking;
  }

  private async stillAdmitted(data: DeliveryBatchJobData): Promise<BatchedDelivery[]> {
    const rows: { uuid: string; attempts: number }[] = await this.dataSource.query(
      `SELECT uuid, attempts FROM webhook_deliveries
       WHERE uuid = ANY($1::uuid[]) AND status = 'pending' AND admitted_at IS NOT NULL`,
      [data.deliveries.map((d) => d.delivery)],
    );
    const admitted = new Map(rows.map((row) => [row.uuid, row.attempts]));
    return data.deliveries.filter((d) => admitted.get(d.delivery) === d.attempts);
  }

  /** Deliveries to an endpoint that is gone or no longer enabled fail, as their attempt would. */
  private async failDisabled(endpoint: string, deliveries: string[]): Promise<void> {
    await this.dataSource.query(
      `UPDATE webhook_deliveries SET status = 'failed', ${NOT_ADMITTED}, updated_at = now()
       WHERE uuid = ANY($1::uuid[]) AND status = 'pending'`,
      [deliveries],
    );
    this.admitter.admit([endpoint]);
  }

  /**
   * Sends one attempt under a lease of its endpoint the caller took, and resolves once its record is durable
   * (committed with its batch job's `answers`).
   */
  private async attempt(
    job: Job,
    endpoint: CachedEndpoint,
    data: DeliveryJobData,
    answers?: AnswerGroup,
  ): Promise<void> {
    const attempt = data.attempts + job.attemptsMade + 1;
    // A secret no key opens is retried on the schedule: setting APP_KEY_PREVIOUS recovers the delivery.
    let result: Attempt;
    // The lease the caller took is given back however the send ends: a lost one would be renewed for as
    // long as this worker lives, one send fewer for its endpoint.
    try {
      this.metrics.started(data.endpoint);
      result = endpoint.unreadableSecret
        ? this.sender.unsent(endpoint.url, data.body, `secret: ${endpoint.unreadableSecret}`, false)
        : await this.sender.sendSigned(
            endpoint.url,
            this.endpoints.secrets(endpoint),
            data.eventId,
            data.body,
          );
    } catch (error) {
      this.metrics.finished(data.endpoint);
      throw error;
    } finally {
      this.leases.release(endpoint.uuid);
      if (answers) this.attempts.answered(answers);
    }
    const schedule = this.config.webhooks.retrySchedule;
    const final = result.status === 'successful' || result.permanent || attempt >= maxAttempts(schedule);
    const outcome = result.status === 'successful' ? 'successful' : final ? 'failed' : 'retrying';
    this.metrics.finished(data.endpoint, outcome, result.duration_ms / 1000);
    const delayMs = final ? 0 : retryDelay(schedule, attempt, result.retryAfterMs);
    // Handed back to the queue by a shutdown timeout: the worker that takes it over records its attempt.
    if (this.inFlight.isReleased(job)) throw new Error('released to the queue on shutdown');
    await this.attempts.record(
      {
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
      },
      answers,
    );
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
