import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ANSWERS_TO_ERASE, OutageMonitor, WRITE_ERASED_ANSWERS, poolOf, withPoolClient } from '@wharf/core';
import { PoolClient } from 'pg';
import { DataSource } from 'typeorm';
import { CLAIM_ERASURE, COUNT_REDACTED, FINISH_ERASURE, RELEASE_ERASURE } from '../../erasure/erasure.sql';
import { Redaction, redactText } from '../../erasure/redaction';
import {
  EVENT_PAYLOADS,
  LOG_BODIES,
  RedactedTable,
  RedactionRow as Row,
  redactedTable,
} from '../../store/redaction.store';
import { ERASURE_BATCH, ERASURE_POLL_MS, ERASURE_STALE_S } from '../../tuning';
import { PeriodicTask } from '../recovery/periodic-task';

interface ErasureJob {
  uuid: string;
  company_uuid: string;
  record_uuid: string;
}

/**
 * One table's rows to redact, read after the keyset cursor (`start` before the first, `cursor` of a row);
 * `redact` gives a changed row's values for the table's update (undefined: unchanged).
 */
interface RedactionPass {
  table: RedactedTable;
  start: string[];
  cursor: (row: Row) => string[];
  redact: (row: Row) => (string | null)[] | undefined;
}

/** Thrown between batches once the worker is stopping. */
class Stopping extends Error {}

/**
 * Runs the erasures POST /int/v1/erasures queued (see erasure/redaction.ts for what is erased): the
 * company's event payloads, its request-log bodies, then the answers kept for its keyed POSTs; ERASURE_BATCH
 * rows per short transaction that locks only them and counts them on the erasure. A worker that dies
 * mid-way leaves it running; another takes it over once it is stale and starts again (rows already redacted
 * are left as they are); one that stops gives it back between batches.
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
      const byTimeAndId = { start: ['-infinity', '0'], cursor: (row: Row) => [row.at!, row.id!] };
      await this.redactAll(job, {
        table: EVENT_PAYLOADS,
        ...byTimeAndId,
        redact: (row) => {
          const payload = redactText(redaction, row.payload!, true);
          return payload === row.payload ? undefined : [row.event_id, payload];
        },
      });
      await this.redactAll(job, {
        table: LOG_BODIES,
        ...byTimeAndId,
        redact: (row) => {
          const request = redactText(redaction, row.request_body!, true);
          const response =
            row.response_body === null ? null : redactText(redaction, row.response_body, false);
          if (request === row.request_body && response === row.response_body) return undefined;
          return [row.id, row.sent_at, request, response];
        },
      });
      // The answers kept for repeats of a keyed POST (24 h) hold the record as it was served.
      await this.redactAll(job, {
        table: redactedTable(ANSWERS_TO_ERASE, WRITE_ERASED_ANSWERS),
        start: [''],
        cursor: (row) => [row.id!],
        redact: (row) => {
          const body = redactText(redaction, row.body!, false);
          return body === row.body ? undefined : [job.company_uuid, row.id, body];
        },
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

  /** Every row `pass.select` finds, in batches, each changed row written back by `pass.update`. */
  private async redactAll(job: ErasureJob, pass: RedactionPass): Promise<void> {
    let after = pass.start;
    for (let more = true; more;) {
      // Between batches: a stopping worker hands the erasure back rather than holding its shutdown.
      if (this.stopping) throw new Stopping();
      more = await this.inTransaction(async (client) => {
        const rows = await pass.table.select(client, job.company_uuid, after, job.record_uuid, ERASURE_BATCH);
        if (!rows.length) return false;
        after = pass.cursor(rows[rows.length - 1]);
        const changed = rows.map(pass.redact).filter((values) => values !== undefined);
        if (changed.length)
          await pass.table.update(
            client,
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
