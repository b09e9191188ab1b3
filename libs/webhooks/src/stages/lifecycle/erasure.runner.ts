import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { OutageMonitor, poolOf, withPoolClient } from '@wharf/core';
import { PoolClient } from 'pg';
import { DataSource } from 'typeorm';
import {
  CLAIM_ERASURE,
  COUNT_REDACTED,
  EVENTS_BATCH,
  FINISH_ERASURE,
  LOGS_BATCH,
  RELEASE_ERASURE,
  UPDATE_EVENTS,
  UPDATE_LOGS,
} from '../../erasure/erasure.sql';
import { Redaction, redactText } from '../../erasure/redaction';
import { ERASURE_BATCH, ERASURE_POLL_MS, ERASURE_STALE_S } from '../../tuning';
import { PeriodicTask } from '../recovery/periodic-task';

interface ErasureJob {
  uuid: string;
  company_uuid: string;
  record_uuid: string;
}

type Row = Record<string, string | null>;

/** Thrown between batches once the worker is stopping. */
class Stopping extends Error {}

/**
 * Runs the erasures POST /int/v1/erasures queued (see erasure/redaction.ts for what is erased): the
 * company's event payloads, then its request-log bodies, ERASURE_BATCH rows per short transaction that
 * locks only them and counts them on the erasure. A worker that dies mid-way leaves it running; another
 * takes it over once it is stale and starts again (rows already redacted are left as they are); one that
 * stops gives it back between batches.
 */
@Injectable()
export class ErasureRunner implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('erasure');
  private readonly periodic: PeriodicTask;
  private stopping = false;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    outages: OutageMonitor,
  ) {
    this.periodic = new PeriodicTask(this.logger, () => this.runPending(), outages);
  }

  onApplicationBootstrap(): void {
    this.periodic.start(ERASURE_POLL_MS);
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    await this.periodic.stop();
  }

  /** Runs erasures until none is waiting; returns how many ran. */
  async runPending(): Promise<number> {
    const pool = poolOf(this.dataSource);
    for (let ran = 0; ; ran++) {
      if (this.stopping) return ran;
      const [job] = (await pool.query<ErasureJob>(CLAIM_ERASURE, [ERASURE_STALE_S])).rows;
      if (!job) return ran;
      await this.run(job);
    }
  }

  private async run(job: ErasureJob): Promise<void> {
    const pool = poolOf(this.dataSource);
    const redaction = new Redaction(job.record_uuid);
    try {
      await this.redactAll(job, EVENTS_BATCH, UPDATE_EVENTS, (row) => {
        const payload = redactText(redaction, row.payload!, true);
        return payload === row.payload ? undefined : [row.event_id, payload];
      });
      await this.redactAll(job, LOGS_BATCH, UPDATE_LOGS, (row) => {
        const request = redactText(redaction, row.request_body!, true);
        const response = row.response_body === null ? null : redactText(redaction, row.response_body, false);
        if (request === row.request_body && response === row.response_body) return undefined;
        return [row.id, row.sent_at, request, response];
      });
      await pool.query(FINISH_ERASURE, [job.uuid, 'done', null]);
      this.logger.log(`erasure ${job.uuid} done`);
    } catch (error) {
      if (error instanceof Stopping) {
        await pool.query(RELEASE_ERASURE, [job.uuid]);
        return;
      }
      // Not marked when PostgreSQL is away: the erasure stays running and is taken over once stale.
      await pool.query(FINISH_ERASURE, [job.uuid, 'failed', (error as Error).message]).catch(() => {
        throw error;
      });
      this.logger.error(`erasure ${job.uuid} failed: ${(error as Error).message}`);
    }
  }

  /** Every row `select` finds, in batches: `redact` gives a changed row's update values (undefined: none). */
  private async redactAll(
    job: ErasureJob,
    select: string,
    update: string,
    redact: (row: Row) => (string | null)[] | undefined,
  ): Promise<void> {
    let after: [string, string] = ['-infinity', '0'];
    for (let more = true; more;) {
      // Between batches: a stopping worker hands the erasure back rather than holding its shutdown.
      if (this.stopping) throw new Stopping();
      more = await this.inTransaction(async (client) => {
        const { rows } = await client.query<Row>(select, [
          job.company_uuid,
          ...after,
          job.record_uuid,
          ERASURE_BATCH,
        ]);
        if (!rows.length) return false;
        after = [rows[rows.length - 1].at!, rows[rows.length - 1].id!];
        const changed = rows.map(redact).filter((values) => values !== undefined);
        if (changed.length)
          await client.query(
            update,
            changed[0].map((_, column) => changed.map((values) => values[column])),
          );
        await client.query(COUNT_REDACTED, [job.uuid, changed.length]);
        return rows.length === ERASURE_BATCH;
      });
    }
  }

  private inTransaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    return withPoolClient(poolOf(this.dataSource), async (client) => {
      await client.query('BEGIN');
      try {
        const result = await work(client);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }
}
