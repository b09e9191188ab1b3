import { Processor, WorkerHost } from '@nestjs/bullmq';
import { BeforeApplicationShutdown, Inject, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { APP_CONFIG, AppConfig, OutageMonitor } from '@wharf/core';
import { Job } from 'bullmq';
import {
  DELIVERY_QUEUE,
  DELIVER_BATCH,
  DeliveryBatchJobData,
  DeliveryJobData,
} from '../../jobs/delivery-job';
import { reportQueueErrors } from '../../jobs/queue-errors';
import { DESTINATION, Destination } from '../../transport/destination';
import { JOB_LOCK_MS, MAX_STALLED, STALLED_CHECK_MS } from '../../tuning';
import { AttemptWriter } from '../record/attempt-writer';
import { LostJobs } from '../recovery/lost-jobs';
import { DeliveryDispatcher } from './delivery.dispatcher';
import { EndpointSendLeases } from './endpoint-send-leases';
import { InFlightJobs } from './in-flight-jobs';

/**
 * The BullMQ host of dispatch (worker process only): takes delivery jobs, hands each to the
 * DeliveryDispatcher, and on shutdown waits for the jobs in flight, then hands the rest back to the queue.
 * A job completes once its attempts are recorded; a failed attempt leaves its delivery `retrying` in
 * PostgreSQL, holding no worker slot, until admission takes it again.
 */
@Processor(DELIVERY_QUEUE, {
  lockDuration: JOB_LOCK_MS,
  stalledInterval: STALLED_CHECK_MS,
  maxStalledCount: MAX_STALLED,
})
export class DeliveryProcessor
  extends WorkerHost
  implements OnApplicationBootstrap, BeforeApplicationShutdown
{
  private readonly logger = new Logger('delivery');
  private readonly inFlight = new InFlightJobs();
  private readonly released = (job: Job) => this.inFlight.isReleased(job);

  constructor(
    private readonly dispatcher: DeliveryDispatcher,
    private readonly records: AttemptWriter,
    private readonly leases: EndpointSendLeases,
    @Inject(DESTINATION) private readonly destination: Destination,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly outages: OutageMonitor,
    private readonly lostJobs: LostJobs,
  ) {
    super();
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.destination.prepare();
    this.worker.concurrency = this.config.webhooks.concurrency;
    // A job Redis lost is recovered from PostgreSQL, not an error: LostJobs sums those up.
    reportQueueErrors(this.worker, 'queue worker', this.outages, this.lostJobs.noted);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.inFlight.drain(this.worker, this.config.shutdownTimeoutMs, this.logger, () => {
      this.records.abandon();
      this.leases.abort();
      void this.destination.abort();
    });
  }

  async process(job: Job<DeliveryJobData | DeliveryBatchJobData>, token?: string): Promise<void> {
    const batch = job.name === DELIVER_BATCH ? (job.data as DeliveryBatchJobData).deliveries.length : 1;
    this.inFlight.track(job, token, batch);
    try {
      if (job.name === DELIVER_BATCH)
        await this.dispatcher.deliverBatch(job as Job<DeliveryBatchJobData>, this.released);
      else await this.dispatcher.deliver(job as Job<DeliveryJobData>, this.released, token);
    } finally {
      this.inFlight.untrack(job);
    }
  }
}
