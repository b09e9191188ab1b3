import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, AppConfig, OutageMonitor } from '@wharf/core';
import { Queue } from 'bullmq';
import { deliveryJobs } from '../../jobs/delivery-batching';
import { DELIVERY_QUEUE, deliveryBatchJobId, deliveryJobId } from '../../jobs/delivery-job';
import { AdmittedDelivery, DeliveryStore } from '../../store/delivery.store';
import { SWEEP_MAX_INTERVAL_MS, SWEEP_MIN_INTERVAL_MS } from '../../tuning';
import { maxAttempts } from '../../retry-schedule';
import { LostJobs } from './lost-jobs';
import { PeriodicTask } from './periodic-task';

/**
 * Stage 5, recovery: PostgreSQL is the source of truth, so a delivery admitted well before and still
 * admitted may have lost its job (Redis restarted without persistence, a crash between admission and
 * enqueue). Its job is queued again; the job id names the delivery and its admission, so a job that still
 * exists is left alone. Unadmitted deliveries are the admitter's.
 */
@Injectable()
export class DeliverySweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('delivery-sweeper');
  private readonly periodic: PeriodicTask;

  constructor(
    private readonly store: DeliveryStore,
    @InjectQueue(DELIVERY_QUEUE) private readonly queue: Queue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly lostJobs: LostJobs,
    outages: OutageMonitor,
  ) {
    this.periodic = new PeriodicTask(this.logger, () => this.sweep(), outages);
  }

  onApplicationBootstrap(): void {
    const every = Math.min(this.config.webhooks.sweepGraceMs, SWEEP_MAX_INTERVAL_MS);
    this.periodic.start(Math.max(SWEEP_MIN_INTERVAL_MS, every));
  }

  /** Returns how many deliveries it queued again. */
  async sweep(): Promise<number> {
    const late = await this.store.admittedBefore(this.config.webhooks.sweepGraceMs);
    // Redis first, PostgreSQL again after: a job that finished between the two reads has recorded its
    // attempt (the delivery is no longer admitted), so it is not queued a second time. A first attempt
    // may be in its admission's batch job or, admitted alone, in a job of its own; a retry is always alone.
    const batchOf = (d: AdmittedDelivery) => deliveryBatchJobId(d.endpoint, d.admission);
    const jobOf = (d: AdmittedDelivery) => deliveryJobId(d.uuid, d.attempts);
    const batches = await this.existingJobs([...new Set(late.filter((d) => !d.attempts).map(batchOf))]);
    const alone = late.filter((d) => d.attempts || !batches.has(batchOf(d)));
    const jobs = await this.existingJobs(alone.map(jobOf));
    const lost = alone.filter((d) => !jobs.has(jobOf(d))).map((d) => d.uuid);
    const rows = await this.store.jobRows(lost);
    if (rows.length)
      await this.queue.addBulk(deliveryJobs(rows, maxAttempts(this.config.webhooks.retrySchedule)));
    // Logged once per recovery, however many sweeps it takes.
    this.lostJobs.swept(rows.map((row) => row.uuid));
    return rows.length;
  }

  /** Which of these jobs exist: asked all at once (ioredis pipelines them), not one round trip each. */
  private async existingJobs(ids: string[]): Promise<Set<string>> {
    const jobs = await Promise.all(ids.map((id) => this.queue.getJob(id)));
    return new Set(ids.filter((_, i) => jobs[i]));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.periodic.stop();
  }
}
