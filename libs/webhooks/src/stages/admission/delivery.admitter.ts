import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, AppConfig, OutageMonitor } from '@wharf/core';
import { Queue } from 'bullmq';
import { deliveryJobs } from '../../jobs/delivery-batching';
import { DELIVERY_QUEUE, DeliveryJobData, deliveryJob } from '../../jobs/delivery-job';
import { DeliveryStore } from '../../store/delivery.store';
import { Admission, DeliveryRow } from '../../store/job-rows.sql';
import { ADMIT_ENDPOINTS_PER_TRANSACTION } from '../../tuning';
import { maxAttempts } from '../../retry-schedule';

/**
 * Stage 2, admission: moves waiting and due retrying deliveries into the queue, per endpoint, up to its
 * queue window (DeliveryStore.admit). PostgreSQL holds every backlog and the queue only each endpoint's
 * window, so a new event for an idle endpoint is behind at most a few jobs per busy endpoint, never behind
 * a backlog, and waiting deliveries hold no worker slot. Woken for the endpoints fan-out left waiting and
 * those whose attempts were recorded; every poll interval it also admits whatever came due (retries,
 * resends, deliveries whose admission a crash or Redis data loss interrupted).
 */
@Injectable()
export class DeliveryAdmitter implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('delivery-admitter');
  private readonly dirty = new Set<string>();
  private scanDue = false;
  private running?: Promise<void>;
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly store: DeliveryStore,
    @InjectQueue(DELIVERY_QUEUE) private readonly queue: Queue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly outages: OutageMonitor,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => this.admitDue(), this.config.webhooks.pollIntervalMs);
    this.timer.unref();
    this.admitDue();
  }

  /** Admits for these endpoints now (or right after the admission in progress). */
  admit(endpoints: Iterable<string>): void {
    for (const endpoint of endpoints) this.dirty.add(endpoint);
    this.run();
  }

  /** Admits for every endpoint that has a due waiting delivery. */
  admitDue(): void {
    this.scanDue = true;
    this.run();
  }

  /** Resolves once no admission is in progress (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private run(): void {
    if (this.stopped || this.running) return;
    this.running = this.loop()
      .catch((error: Error) => {
        // An outage is logged once by the monitor; the periodic scan admits what this run missed.
        if (!this.outages.report(error)) this.logger.error(`admission failed: ${error.message}`);
      })
      .finally(() => {
        this.running = undefined;
        if (this.dirty.size || this.scanDue) this.run();
      });
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      if (this.scanDue) {
        this.scanDue = false;
        for (const endpoint of await this.store.dueEndpoints()) this.dirty.add(endpoint);
      }
      if (!this.dirty.size) return;
      const chunk = [...this.dirty].slice(0, ADMIT_ENDPOINTS_PER_TRANSACTION);
      for (const endpoint of chunk) this.dirty.delete(endpoint);
      await this.enqueue(await this.store.admit(chunk));
    }
  }

  /**
   * Adds the jobs of deliveries just admitted. A crash, or Redis failing, before this leaves admitted
   * deliveries without a job: the sweeper enqueues them from PostgreSQL.
   */
  async enqueue(rows: DeliveryRow[]): Promise<void> {
    if (!rows.length) return;
    await this.queue.addBulk(deliveryJobs(rows, maxAttempts(this.config.webhooks.retrySchedule)));
  }

  /**
   * Takes what fan-out or a record admitted: queues its jobs (not awaited: until they exist, the sweeper
   * finds the deliveries admitted without one) and admits for the endpoints it names.
   */
  admitted({ admitted, admitMore }: Admission): void {
    if (admitted.length)
      this.enqueue(admitted).catch((error: Error) =>
        this.logger.warn(`admitted deliveries not queued yet: ${error.message}`),
      );
    if (admitMore.length) this.admit(admitMore);
  }

  /** Gives each of these admitted deliveries a job of its own (a batch split up by dispatch). */
  async enqueueEach(deliveries: DeliveryJobData[]): Promise<void> {
    const attempts = maxAttempts(this.config.webhooks.retrySchedule);
    await this.queue.addBulk(deliveries.map((data) => deliveryJob(data, attempts)));
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.idle();
  }
}
