import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { APP_CONFIG, AppConfig, OutageMonitor } from '@wharf/core';
import { Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import { PeriodicTask } from './periodic-task';
import { DELIVERY_QUEUE, enqueueDeliveries } from '../delivery/delivery-queue';
import { maxAttempts } from './retry-schedule';

/**
 * PostgreSQL is the source of truth: a delivery still pending after its next attempt was due may have lost
 * its job (Redis restarted without persistence, a worker killed between the relay's commit and its
 * enqueue). Those whose job no longer exists in Redis are re-enqueued; a delivery merely waiting its turn
 * in a backlog still has its job and is left alone, so the grace can be seconds rather than minutes.
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
    const missing = await this.withoutJob(await this.late());
    // A job that completed between the two reads is gone from Redis too, but its delivery is no longer
    // pending: reading the deliveries again keeps it from being sent twice.
    const lost = missing.length ? await this.late(missing) : [];
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

  /** Pending deliveries overdue by more than the grace (among `uuids`, when given). */
  private async late(uuids?: string[]): Promise<string[]> {
    const rows: { uuid: string }[] = await this.dataSource.query(
      `SELECT uuid FROM webhook_deliveries
       WHERE status = 'pending' AND next_attempt_at < now() - make_interval(secs => $1)
         AND ($2::uuid[] IS NULL OR uuid = ANY($2::uuid[]))
       ORDER BY next_attempt_at LIMIT 1000`,
      [this.config.webhooks.sweepGraceMs / 1000, uuids ?? null],
    );
    return rows.map((row) => row.uuid);
  }

  /** The deliveries whose job (id = delivery uuid) is not in Redis: one pipelined EXISTS per job hash. */
  private async withoutJob(uuids: string[]): Promise<string[]> {
    if (!uuids.length) return [];
    const client = await this.queue.client;
    const pipeline = client.pipeline();
    for (const uuid of uuids) pipeline.runCommand('exists', [this.queue.toKey(uuid)]);
    const results = (await pipeline.exec()) ?? [];
    return uuids.filter((_, i) => {
      const [error, exists] = results[i] ?? [];
      if (error) throw error;
      return exists === 0;
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.periodic.stop();
  }
}
