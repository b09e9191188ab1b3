import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { APP_CONFIG, AppConfig, OutageMonitor } from '@wharf/core';
import { DataSource } from 'typeorm';
import { PURGE_BATCH, PURGE_EVERY_MS } from '../../tuning';
import { PeriodicTask } from './periodic-task';

/** Deletes request-log rows older than WEBHOOKS_LOG_RETENTION_DAYS, in small batches, once an hour. */
@Injectable()
export class RequestLogPurger implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('request-log-purger');
  private readonly periodic: PeriodicTask;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    outages: OutageMonitor,
  ) {
    this.periodic = new PeriodicTask(this.logger, () => this.purge(), outages);
  }

  onApplicationBootstrap(): void {
    this.periodic.start(PURGE_EVERY_MS);
  }

  /** Returns how many rows were deleted. */
  async purge(): Promise<number> {
    let total = 0;
    for (;;) {
      const [, deleted]: [unknown, number] = await this.dataSource.query(
        `DELETE FROM webhook_request_logs WHERE id IN (
           SELECT id FROM webhook_request_logs WHERE sent_at < now() - make_interval(days => $1) LIMIT ${PURGE_BATCH})`,
        [this.config.webhooks.logRetentionDays],
      );
      total += deleted;
      if (deleted < PURGE_BATCH) return total;
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.periodic.stop();
  }
}
