import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { APP_CONFIG, AppConfig } from '@wharf/core';
import { DataSource } from 'typeorm';

const EVERY_MS = 60 * 60 * 1000;
const BATCH = 5000;

/** Deletes request-log rows older than WEBHOOKS_LOG_RETENTION_DAYS, in small batches, once an hour. */
@Injectable()
export class RequestLogPurger implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('request-log-purger');
  private timer?: NodeJS.Timeout;
  private running?: Promise<unknown>;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      this.running ??= this.purge()
        .catch((error: Error) => this.logger.error(`purge failed: ${error.message}`))
        .finally(() => (this.running = undefined));
    }, EVERY_MS);
    this.timer.unref();
  }

  /** Returns how many rows were deleted. */
  async purge(): Promise<number> {
    let total = 0;
    for (;;) {
      const [, deleted]: [unknown, number] = await this.dataSource.query(
        `DELETE FROM webhook_request_logs WHERE id IN (
           SELECT id FROM webhook_request_logs WHERE sent_at < now() - make_interval(days => $1) LIMIT ${BATCH})`,
        [this.config.webhooks.logRetentionDays],
      );
      total += deleted;
      if (deleted < BATCH) return total;
    }
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }
}
