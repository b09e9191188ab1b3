import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { APP_CONFIG, AppConfig, OutageMonitor, poolOf, prepared } from '@wharf/core';
import { Queue } from 'bullmq';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { DELIVERY_QUEUE, DeliveryRow, deliveryJob, deliveryJobData } from '../delivery/delivery-queue';
import { OUTBOX_CHANNEL } from '../outbox/outbox.writer';
import { maxAttempts } from './retry-schedule';

const BATCH = 500;

/** A row per delivery created; when there are none, a single row with only `claimed` (the rest null). */
type Fanned = { claimed: number } & (DeliveryRow | { [column in keyof DeliveryRow]: null });

/**
 * One statement, so one round trip and one atomic commit: claim a batch of undispatched events (SKIP LOCKED,
 * so relays in several workers share the work), mark them dispatched, and create a delivery for every
 * matching enabled endpoint.
 */
const DISPATCH_BATCH = `
WITH claimed AS (
  SELECT id, event_id, company_uuid, name FROM webhook_events
  WHERE dispatched_at IS NULL ORDER BY id LIMIT ${BATCH} FOR UPDATE SKIP LOCKED
), dispatched AS (
  UPDATE webhook_events e SET dispatched_at = now() FROM claimed c WHERE e.id = c.id
), targets AS (
  SELECT c.id, c.event_id, c.company_uuid, ep.uuid AS endpoint
  FROM claimed c
  JOIN webhook_endpoints ep ON ep.company_uuid = c.company_uuid AND ep.status = 'enabled'
   AND (ep.events ? c.name OR ep.events ? '*')
), inserted AS (
  INSERT INTO webhook_deliveries (event_id, webhook_endpoint_uuid, company_uuid)
  SELECT event_id, endpoint, company_uuid FROM targets ORDER BY id
  ON CONFLICT (event_id, webhook_endpoint_uuid) DO NOTHING
  RETURNING uuid, event_id, webhook_endpoint_uuid, attempts
)
-- Joins against the tables, not between CTEs: the planner cannot size a CTE, and guesses a nested loop.
SELECT n.claimed, i.uuid, i.webhook_endpoint_uuid, e.company_uuid, i.attempts, e.event_id, e.name,
  e.payload::text AS body, (extract(epoch FROM ep.updated_at) * 1000)::bigint AS version
FROM (SELECT count(*)::int AS claimed FROM claimed) n
LEFT JOIN (inserted i
  JOIN webhook_events e ON e.event_id = i.event_id
  JOIN webhook_endpoints ep ON ep.uuid = i.webhook_endpoint_uuid) ON true
ORDER BY e.id`;

/**
 * Moves committed outbox events into deliveries: claims undispatched events (FOR UPDATE SKIP LOCKED, so
 * any number of workers can run), creates one delivery per matching enabled endpoint, and enqueues a job
 * per delivery. Woken by NOTIFY at commit, with polling as the fallback. A crash between the commit and
 * the enqueue leaves pending deliveries, which the sweeper re-enqueues.
 */
@Injectable()
export class OutboxRelay implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('outbox-relay');
  private listener?: Client;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private again = false;
  private stopped = false;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @InjectQueue(DELIVERY_QUEUE) private readonly queue: Queue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly outages: OutageMonitor,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.listen();
    this.timer = setInterval(() => this.kick(), this.config.webhooks.pollIntervalMs);
    this.kick();
  }

  private async listen(): Promise<void> {
    const client = new Client({ connectionString: this.config.databaseUrl });
    client.on('notification', () => this.kick());
    client.on('error', (error) => {
      if (!this.outages.report(error))
        this.logger.warn(`LISTEN connection lost (${error.message}); polling until it is back`);
      this.listener = undefined;
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${OUTBOX_CHANNEL}`);
      this.listener = client;
    } catch (error) {
      if (!this.outages.report(error))
        this.logger.warn(`LISTEN unavailable (${(error as Error).message}); polling`);
      await client.end().catch(() => undefined);
    }
  }

  /** Runs a drain now, or once more right after the one in progress. */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.drain()
      .catch((error: Error) => {
        if (!this.outages.report(error)) this.logger.error(`relay failed: ${error.message}`);
      })
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
    if (!this.listener && !this.stopped) void this.listen();
  }

  private async drain(): Promise<void> {
    while (!this.stopped && (await this.dispatchBatch()) === BATCH);
  }

  /** Claims one batch of events and fans them out; returns how many events it claimed. */
  async dispatchBatch(): Promise<number> {
    const { rows } = await poolOf(this.dataSource).query<Fanned>(prepared(DISPATCH_BATCH));
    const jobs = rows.flatMap((row) => (row.uuid === null ? [] : [deliveryJobData(row)]));
    if (jobs.length) {
      const attempts = maxAttempts(this.config.webhooks.retrySchedule);
      await this.queue.addBulk(jobs.map((job) => deliveryJob(job, attempts)));
    }
    return rows[0]?.claimed ?? 0;
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.running;
    await this.listener?.end().catch(() => undefined);
  }
}
