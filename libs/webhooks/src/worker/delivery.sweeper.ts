import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { APP_CONFIG, AppConfig, OutageMonitor } from '@wharf/core';
import { Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import { PeriodicTask } from './periodic-task';
import {
  DELIVERY_QUEUE,
  deliveryBatchJobId,
  deliveryJobId,
  enqueueDeliveries,
} from '../delivery/delivery-queue';
import { admissionOf } from './admission-sql';
import { maxAttempts } from './retry-schedule';

/**
 * PostgreSQL is the source of truth: a delivery admitted to the queue well before and still pending may
 * have lost its job (Redis restarted without persistence, a crash between admission and enqueue).
 * Re-enqueue it; the job id names the delivery and its admission, so a job that still exists is left
 * alone. Waiting deliveries are the DeliveryAdmitter's.
 */
@Injectable()
export class DeliverySweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('delivery-sweeper');
  private readonly periodic: PeriodicTask;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @InjectQueue(DELIVERY_QUEUE) private readonly queue: Queue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    outages: OutageMonitor,
  ) {
    this.periodic = new PeriodicTask(this.logger, () => this.sweep(), outages);
  }

  onApplicationBootstrap(): void {
    this.periodic.start(Math.max(500, Math.min(this.config.webhooks.sweepGraceMs, 30_000)));
  }

  /** Returns how many deliveries it re-enqueued. */
  async sweep(): Promise<number> {
    const late: { uuid: string; endpoint: string; attempts: number; admission: string }[] =
      await this.dataSource.query(
        `SELECT d.uuid, d.webhook_endpoint_uuid AS endpoint, d.attempts, ${admissionOf('d')} AS admission
       FROM webhook_deliveries d
       WHERE d.status = 'pending' AND d.admitted_at < now() - make_interval(secs => $1)
       ORDER BY d.admitted_at LIMIT 1000`,
        [this.config.webhooks.sweepGraceMs / 1000],
      );
    // Redis first, PostgreSQL again after: a job that finished between the two reads has recorded its
    // attempt (the delivery is no longer admitted), so it is not enqueued a second time. A first attempt
    // may be in its admission's batch job or, admitted alone, under a rate limit or split from a batch,
    // in a job of its own; a retry is always alone.
    const batches = new Map<string, boolean>();
    const lost: string[] = [];
    for (const delivery of late) {
      if (delivery.attempts === 0) {
        const batchId = deliveryBatchJobId(delivery.endpoint, delivery.admission);
        let exists = batches.get(batchId);
        if (exists === undefined) batches.set(batchId, (exists = !!(await this.queue.getJob(batchId))));
        if (exists) continue;
      }
      if (!(await this.queue.getJob(deliveryJobId(delivery.uuid, delivery.attempts))))
        lost.push(delivery.uuid);
    }
    if (!lost.length) return 0;
    const count = await enqueueDeliveries(
      this.dataSource,
      this.queue,
      lost,
      maxAttempts(this.config.webhooks.retrySchedule),
    );
    this.logger.log({ msg: `re-enqueued ${count} deliveries that had no job`, count });
    return count;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.periodic.stop();
  }
}
