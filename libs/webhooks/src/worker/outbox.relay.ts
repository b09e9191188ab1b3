import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { APP_CONFIG, AppConfig } from '@wharf/core';
import { Queue } from 'bullmq';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { DELIVERY_QUEUE, DeliveryJobData, deliveryJob } from '../delivery/delivery-queue';
import { OUTBOX_CHANNEL } from '../outbox/outbox.writer';
import { maxAttempts } from './retry-schedule';

const BATCH = 500;

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
      this.logger.warn(`LISTEN connection lost (${error.message}); polling until it is back`);
      this.listener = undefined;
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${OUTBOX_CHANNEL}`);
      this.listener = client;
    } catch (error) {
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
      .catch((error: Error) => this.logger.error(`relay failed: ${error.message}`))
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
    const { claimed, jobs } = await this.dataSource.transaction(async (manager) => {
      const events: { id: string; event_id: string; name: string; body: string }[] = await manager.query(
        `SELECT id, event_id, name, payload::text AS body FROM webhook_events
         WHERE dispatched_at IS NULL ORDER BY id LIMIT ${BATCH} FOR UPDATE SKIP LOCKED`,
      );
      if (!events.length) return { claimed: 0, jobs: [] as DeliveryJobData[] };
      const ids = events.map((event) => event.id);
      const created: {
        uuid: string;
        event_id: string;
        endpoint: string;
        company: string;
        version: string;
      }[] = await manager.query(
        `WITH targets AS (
           SELECT e.id, e.event_id, e.company_uuid, ep.uuid AS endpoint, (extract(epoch FROM ep.updated_at) * 1000)::bigint AS version
           FROM webhook_events e
           JOIN webhook_endpoints ep ON ep.company_uuid = e.company_uuid AND ep.status = 'enabled'
            AND (ep.events ? e.name OR ep.events ? '*')
           WHERE e.id = ANY($1::bigint[])
         ), inserted AS (
           INSERT INTO webhook_deliveries (event_id, webhook_endpoint_uuid, company_uuid)
           SELECT event_id, endpoint, company_uuid FROM targets ORDER BY id
           ON CONFLICT (event_id, webhook_endpoint_uuid) DO NOTHING
           RETURNING uuid, event_id, webhook_endpoint_uuid
         )
         SELECT i.uuid, i.event_id, t.endpoint, t.company_uuid AS company, t.version
         FROM inserted i JOIN targets t ON t.event_id = i.event_id AND t.endpoint = i.webhook_endpoint_uuid
         ORDER BY t.id`,
        [ids],
      );
      await manager.query('UPDATE webhook_events SET dispatched_at = now() WHERE id = ANY($1::bigint[])', [
        ids,
      ]);
      const byId = new Map(events.map((event) => [event.event_id, event]));
      const jobs = created.map((row) => {
        const event = byId.get(row.event_id)!;
        return {
          delivery: row.uuid,
          endpoint: row.endpoint,
          endpointVersion: Number(row.version),
          company: row.company,
          eventId: row.event_id,
          event: event.name,
          body: event.body,
          attempts: 0,
        };
      });
      return { claimed: events.length, jobs };
    });
    if (jobs.length) {
      const attempts = maxAttempts(this.config.webhooks.retrySchedule);
      await this.queue.addBulk(jobs.map((job) => deliveryJob(job, attempts)));
    }
    return claimed;
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.running;
    await this.listener?.end().catch(() => undefined);
  }
}
