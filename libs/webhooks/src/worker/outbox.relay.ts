import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { APP_CONFIG, AppConfig, OutageMonitor, poolOf, prepared } from '@wharf/core';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { DeliveryRow } from '../delivery/delivery-queue';
import { orderingColumns } from '../delivery/ordering-sql';
import { ADMIT_PAYLOAD, OUTBOX_CHANNEL, UNDISPATCHED_EVENTS } from '../outbox/outbox.writer';
import { admissionNumber, NO_JOB, firstWaitingAt, freeSlots, jobRows, splitAdmission } from './admission-sql';
import { DeliveryAdmitter } from './delivery.admitter';

const BATCH = 500;

/**
 * A row of what a batch fanned out: the job data of a delivery admitted at once, or a row naming an
 * endpoint left with waiting deliveries (only `more`; see splitAdmission), or the one row with only
 * `claimed`, the number of events claimed.
 */
type Fanned = DeliveryRow & { more: string | null; claimed: number | null };

/**
 * One statement, so one round trip and one atomic commit: claim a batch of undispatched events from their
 * queue (SKIP LOCKED, so relays in several workers share the work), take them off it, and create a delivery
 * for every matching enabled endpoint. For endpoints with ordering = 'entity' a delivery also records its
 * record (`data.id`) and outbox position.
 *
 * A delivery is admitted as it is created while its endpoint has room (its cap less its admitted deliveries)
 * and nothing older waiting, oldest event first, by the rules the DeliveryAdmitter applies; the rest wait
 * for it. That spares a quiet endpoint's event a second transaction (the admitter's lock, admission and
 * commit) and its row an update. An ordered endpoint's deliveries always wait: whether one may go depends
 * on outbox events other relays may hold uncommitted. No lock: two relays fanning out to one endpoint at
 * once can each fill it from the same count, which overfills its queue (as two attempt records can, see
 * RECORD_ATTEMPTS), never its sends, which its leases bound.
 */
export const DISPATCH_BATCH = `
WITH queued AS (
  SELECT id FROM ${UNDISPATCHED_EVENTS} ORDER BY id LIMIT ${BATCH} FOR UPDATE SKIP LOCKED
), dispatched AS (
  DELETE FROM ${UNDISPATCHED_EVENTS} u WHERE u.id = ANY(ARRAY(SELECT id FROM queued))
), claimed AS (
  -- An id whose event is gone (deleted with its company before it was fanned out) is dropped all the same.
  -- An array, not a join: planned from a backlog's statistics, a join walked the outbox's whole primary key.
  SELECT e.id, e.event_id, e.company_uuid, e.name FROM webhook_events e WHERE e.id = ANY(ARRAY(SELECT id FROM queued))
), targets AS (
  SELECT c.id, c.event_id, c.company_uuid, ep.uuid AS endpoint, ep.ordering = 'entity' AS ordered
  FROM claimed c
  -- Each event's company's endpoints, looked up by company (OFFSET 0 keeps the planner from flattening it
  -- into a join): planned with a few endpoints, the join read every enabled endpoint of every company.
  CROSS JOIN LATERAL (
    SELECT ep.uuid, ep.ordering FROM webhook_endpoints ep
    WHERE ep.company_uuid = c.company_uuid AND ep.status = 'enabled' AND (ep.events ? c.name OR ep.events ? '*')
    OFFSET 0
  ) ep
), room AS MATERIALIZED (
  -- Once per endpoint, not per event: how many of its new deliveries may go now. MATERIALIZED: inlined into
  -- the insert's join, its look-ups ran once per event (500 per batch, 0.9 of ~7 ms in a backlog's state).
  SELECT ep.uuid AS endpoint,
    CASE WHEN ep.ordering = 'entity' OR ${firstWaitingAt('ep.uuid')} <= now() THEN 0
      ELSE ${freeSlots('ep')} END AS free
  FROM webhook_endpoints ep WHERE ep.uuid = ANY(ARRAY(SELECT DISTINCT t.endpoint FROM targets t))
), inserted AS (
  INSERT INTO webhook_deliveries (event_id, webhook_endpoint_uuid, company_uuid, entity_key, event_seq, admitted_at, admission)
  SELECT n.event_id, n.endpoint, n.company_uuid, n.entity_key, n.event_seq,
    CASE WHEN n.admit THEN now() END, CASE WHEN n.admit THEN ${admissionNumber()} END
  FROM (
    SELECT t.id, t.event_id, t.endpoint, t.company_uuid,
      ${orderingColumns('t.ordered', 'SELECT e.payload FROM webhook_events e WHERE e.id = t.id', 't.id')},
      row_number() OVER (PARTITION BY t.endpoint ORDER BY t.id) <= r.free AS admit
    FROM targets t JOIN room r ON r.endpoint = t.endpoint
  ) n(id, event_id, endpoint, company_uuid, entity_key, event_seq, admit) ORDER BY n.id
  ON CONFLICT (webhook_endpoint_uuid, event_id) DO NOTHING
  RETURNING uuid, webhook_endpoint_uuid, company_uuid, attempts, event_id, admitted_at, admission
), admitted AS (
  SELECT * FROM inserted WHERE admitted_at IS NOT NULL
)
SELECT j.*, NULL::uuid AS more, NULL::int AS claimed FROM (${jobRows('admitted')}) j
UNION ALL
SELECT ${NO_JOB}, w.endpoint, NULL
FROM (SELECT DISTINCT webhook_endpoint_uuid AS endpoint FROM inserted WHERE admitted_at IS NULL) w
UNION ALL
SELECT ${NO_JOB}, NULL, count(*)::int FROM queued`;

/**
 * Moves committed outbox events into deliveries: claims undispatched events (FOR UPDATE SKIP LOCKED, so
 * any number of workers can run), creates one delivery per matching enabled endpoint, queues the jobs of
 * those it admitted at once and has the DeliveryAdmitter admit the rest. Woken by NOTIFY at commit, with
 * polling as the fallback. A crash after the commit leaves admitted deliveries without a job, which the
 * sweeper queues, and waiting ones, which the admitter's periodic pass admits.
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
    private readonly admitter: DeliveryAdmitter,
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
    // The api notifies ADMIT_PAYLOAD when it puts deliveries back (resend, recover): only admission is due.
    client.on('notification', (message) =>
      message.payload === ADMIT_PAYLOAD ? this.admitter.admitDue() : this.kick(),
    );
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
    const claimed = rows.find((row) => row.claimed !== null)?.claimed ?? 0;
    this.admitter.admitted(splitAdmission(rows.filter((row) => row.claimed === null)));
    return claimed;
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.running;
    await this.listener?.end().catch(() => undefined);
  }
}
