import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { APP_CONFIG, AppConfig, OutageMonitor, poolOf, withPoolClient } from '@wharf/core';
import { DataSource } from 'typeorm';
import { DeliveryStore } from '../../store/delivery.store';
import { MAINTAIN_MAX_INTERVAL_MS } from '../../tuning';
import { PeriodicTask } from '../recovery/periodic-task';
import { EVENTS, REQUEST_LOGS } from './partitioned-tables';
import { ensurePartitions } from './partitions';
import { applyRetention } from './retention';
import { UPKEEP_LIMITS, Upkeep, UpkeepLimits, upkeepOf } from './table-upkeep';

const DAY_MS = 86_400_000;

/**
 * The upkeep of the partitioned tables, once per partition interval (at least every
 * MAINTAIN_MAX_INTERVAL_MS): partitions created PARTITIONS_AHEAD intervals ahead, so no insert waits for
 * one, then retention: partitions past WEBHOOKS_EVENT_RETENTION_DAYS / WEBHOOKS_LOG_RETENTION_DAYS archived
 * (WEBHOOKS_ARCHIVE_DIR) and dropped; then the tables delivery churns are vacuumed and analyzed as they
 * need (table-upkeep.ts). Every worker runs it; two at once serialise on the tables' locks.
 */
@Injectable()
export class PartitionMaintainer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('partitions');
  private readonly periodic: PeriodicTask;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly store: DeliveryStore,
    outages: OutageMonitor,
  ) {
    this.periodic = new PeriodicTask(this.logger, () => this.maintain(), outages);
  }

  onApplicationBootstrap(): void {
    this.periodic.start(Math.min(this.config.webhooks.partitionIntervalMs, MAINTAIN_MAX_INTERVAL_MS));
  }

  /** One round: partitions ahead, retention, then the churned tables' upkeep. */
  async maintain(): Promise<void> {
    await this.ensureAhead();
    await this.purge();
    await this.upkeep();
  }

  /** VACUUM / ANALYZE of the churned tables that need it; returns what it did. */
  async upkeep(limits: UpkeepLimits = UPKEEP_LIMITS): Promise<Upkeep[]> {
    const work = upkeepOf(await this.store.churnStats(), limits);
    for (const { table, work: what } of work) {
      const started = performance.now();
      await this.store.vacuum(table, what === 'vacuum');
      const line = `${what} ${table}: ${Math.round(performance.now() - started)} ms`;
      // Fresh statistics are routine (a first endpoint is enough for some); a vacuum is rare and worth a line.
      if (what === 'analyze') this.logger.debug(line);
      else this.logger.log(line);
    }
    return work;
  }

  /** Creates the partitions ahead that are missing; returns their names. */
  async ensureAhead(): Promise<string[]> {
    const created = await withPoolClient(poolOf(this.dataSource), (client) =>
      ensurePartitions(client, this.config.webhooks.partitionIntervalMs),
    );
    if (created.length) this.logger.log(`created partitions ${created.join(', ')}`);
    return created;
  }

  /** Retention of both tables; returns about how many rows were dropped. */
  async purge(now = Date.now()): Promise<number> {
    const { webhooks } = this.config;
    const options = {
      store: this.store,
      archiveDir: webhooks.archiveDir,
      onDrop: (partition: string, lockedMs: number) =>
        this.logger.log(`dropped ${partition} (its table locked ${Math.round(lockedMs)} ms)`),
    };
    return withPoolClient(poolOf(this.dataSource), async (client) => {
      const events = await applyRetention(
        client,
        EVENTS,
        now - webhooks.eventRetentionDays * DAY_MS,
        options,
      );
      const logs = await applyRetention(
        client,
        REQUEST_LOGS,
        now - webhooks.logRetentionDays * DAY_MS,
        options,
      );
      if (events + logs)
        this.logger.log(`retention dropped about ${events} events, ${logs} request-log rows`);
      return events + logs;
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.periodic.stop();
  }
}
