import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { APP_CONFIG, AppConfig, OutageMonitor, poolOf, prepared, withPoolClient } from '@wharf/core';
import { Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import {
  DELIVERY_QUEUE,
  DeliveryJobData,
  DeliveryRow,
  deliveryJob,
  deliveryJobs,
} from '../delivery/delivery-queue';
import {
  Admission,
  admitNow,
  firstWaitingAt,
  freeSlots,
  inOrder,
  jobRows,
  waitingDue,
} from './admission-sql';
import { maxAttempts } from './retry-schedule';

/** Endpoints admitted in one transaction. */
const CHUNK = 200;

/**
 * Serialises admission per endpoint across every worker. Taken in uuid order (as the attempt recorder
 * does), and NO KEY UPDATE so that the relay's inserts (a foreign-key share lock) are never blocked.
 */
const LOCK_ENDPOINTS = `SELECT uuid FROM webhook_endpoints WHERE uuid = ANY($1::uuid[]) ORDER BY uuid FOR NO KEY UPDATE`;

/**
 * Run after LOCK_ENDPOINTS as its own statement, so its snapshot sees every admission and attempt committed
 * before the lock was granted. Per endpoint: free = its cap (1 while throttled) minus its admitted pending
 * deliveries; admits that many due waiting deliveries, oldest due first. With ordering = 'entity', a
 * delivery waits while an earlier delivery of its record to the endpoint is pending (waiting, retrying or
 * in flight), and while any earlier outbox event is not fanned out yet (a relay in another worker may
 * hold an earlier event of the same record in a batch it has not committed). Due waiting deliveries of an
 * endpoint that is no longer enabled fail, as their attempt would. (The attempt recorder admits too, one
 * successor per finished attempt, which never changes the count; see RECORD_ATTEMPTS.)
 */
export const ADMIT = `
WITH endpoint AS (
  SELECT ep.uuid, ep.status, ep.ordering = 'entity' AS ordered,
    ${freeSlots('ep')} AS free
  FROM webhook_endpoints ep WHERE ep.uuid = ANY($1::uuid[])
), picked AS (
  SELECT w.uuid FROM endpoint ep CROSS JOIN LATERAL (
    SELECT d.uuid FROM webhook_deliveries d
    WHERE d.webhook_endpoint_uuid = ep.uuid AND ${waitingDue('d')} AND ${inOrder('d', 'ep.ordered')}
    ORDER BY d.next_attempt_at LIMIT greatest(ep.free, 0)
  ) w WHERE ep.status = 'enabled' AND ep.free > 0
), admitted AS (
  -- An array, not a join (see RECORD_ATTEMPTS' admitted).
  UPDATE webhook_deliveries d SET ${admitNow()}
  WHERE d.uuid = ANY(ARRAY(SELECT p.uuid FROM picked p)) AND d.admitted_at IS NULL
  RETURNING d.uuid, d.webhook_endpoint_uuid, d.company_uuid, d.attempts, d.event_id, d.admitted_at, d.admission
), dropped AS (
  -- An array of uuids, found through the waiting index: a join here could plan as a scan of every delivery.
  UPDATE webhook_deliveries d SET status = 'failed', updated_at = now()
  WHERE d.uuid = ANY(ARRAY(
    SELECT w.uuid FROM endpoint ep CROSS JOIN LATERAL (
      SELECT w.uuid FROM webhook_deliveries w
      WHERE w.webhook_endpoint_uuid = ep.uuid AND ${waitingDue('w')} ORDER BY w.next_attempt_at
    ) w WHERE ep.status <> 'enabled'
  )) AND ${waitingDue('d')}
)
${jobRows('admitted')}`;

/**
 * Endpoints with a due waiting delivery, found by skipping through the waiting index one endpoint at a
 * time, so 100,000 waiting deliveries of one endpoint cost one index probe, not a scan.
 */
export const DUE_ENDPOINTS = `
WITH RECURSIVE endpoints AS (
  (SELECT webhook_endpoint_uuid AS uuid FROM webhook_deliveries
   WHERE status = 'pending' AND admitted_at IS NULL ORDER BY webhook_endpoint_uuid LIMIT 1)
  UNION ALL
  SELECT (SELECT d.webhook_endpoint_uuid FROM webhook_deliveries d
          WHERE d.status = 'pending' AND d.admitted_at IS NULL AND d.webhook_endpoint_uuid > e.uuid
          ORDER BY d.webhook_endpoint_uuid LIMIT 1)
  FROM endpoints e WHERE e.uuid IS NOT NULL
)
SELECT e.uuid FROM endpoints e WHERE e.uuid IS NOT NULL AND ${firstWaitingAt('e.uuid')} <= now()`;

/**
 * Admits waiting deliveries to the BullMQ queue, per endpoint, up to its `max_in_flight` (DESIGN.md 6.3):
 * PostgreSQL holds every backlog, the queue holds at most the in-flight deliveries of each endpoint, so a
 * new event for an idle endpoint is behind at most a few jobs per busy endpoint, never behind a backlog,
 * and waiting deliveries hold no worker slot. Woken for the endpoints the relay just fanned out to and
 * those whose attempts just finished; every poll interval it also admits whatever came due (retries,
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
    @InjectDataSource() private readonly dataSource: DataSource,
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
        const { rows } = await poolOf(this.dataSource).query<{ uuid: string }>(prepared(DUE_ENDPOINTS));
        for (const row of rows) this.dirty.add(row.uuid);
      }
      if (!this.dirty.size) return;
      const chunk = [...this.dirty].slice(0, CHUNK);
      for (const endpoint of chunk) this.dirty.delete(endpoint);
      await this.admitChunk(chunk);
    }
  }

  private async admitChunk(endpoints: string[]): Promise<void> {
    const rows = await withPoolClient(poolOf(this.dataSource), async (client) => {
      await client.query('BEGIN');
      try {
        await client.query(prepared(LOCK_ENDPOINTS, [endpoints]));
        const admitted = (await client.query<DeliveryRow>(prepared(ADMIT, [endpoints]))).rows;
        await client.query('COMMIT');
        return admitted;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
    await this.enqueue(rows);
  }

  /**
   * Adds the jobs of deliveries just admitted (here or by the attempt recorder). A crash, or Redis failing,
   * before this leaves admitted deliveries without a job: the sweeper enqueues them from PostgreSQL.
   */
  async enqueue(rows: DeliveryRow[]): Promise<void> {
    if (!rows.length) return;
    await this.queue.addBulk(deliveryJobs(rows, maxAttempts(this.config.webhooks.retrySchedule)));
  }

  /**
   * Takes what a relay batch or attempt record admitted: queues its jobs (not awaited: until they exist,
   * the sweeper finds the deliveries admitted without one) and admits for the endpoints it names.
   */
  admitted({ admitted, admitMore }: Admission): void {
    if (admitted.length)
      this.enqueue(admitted).catch((error: Error) =>
        this.logger.warn(`admitted deliveries not queued yet: ${error.message}`),
      );
    if (admitMore.length) this.admit(admitMore);
  }

  /** Gives each of these admitted deliveries a job of its own (a batch split up by the processor). */
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
