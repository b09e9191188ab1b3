import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, AppConfig, OutageMonitor, lostRace } from '@wharf/core';
import { AttemptRecord } from '../../store/attempt-record';
import { DeliveryStore } from '../../store/delivery.store';
import { Admission } from '../../store/job-rows.sql';
import {
  RECORD_BATCH,
  RECORD_LINGER_MS,
  RECORD_OUTAGE_RETRY_MS,
  RECORD_STATEMENTS_AT_ONCE as MAX_IN_FLIGHT,
} from '../../tuning';
import { DeliveryAdmitter } from '../admission/delivery.admitter';

/** SQLSTATE classes that blame the data (22 data exception, 23 integrity violation), not the database. */
const REFUSED_DATA = /^2[23]/;

/**
 * The answers a batch job still awaits. Its records are committed together once the last is in (or
 * RECORD_LINGER_MS after the first), not a fixed linger: the endpoint's next job waits for this commit.
 */
export class AnswerGroup {
  /** When its first record was buffered (performance.now()). */
  firstRecordAt?: number;
  constructor(public outstanding: number) {}
}

interface Pending {
  record: AttemptRecord;
  group?: AnswerGroup;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Stage 4, record: group commit of attempt records (DeliveryStore.record). Each delivery awaits the commit
 * of the batch it joined (so a job is only acknowledged once its outcome is durable), while the database
 * sees one statement per batch; the successors it admitted go to the admitter.
 */
@Injectable()
export class AttemptWriter implements OnApplicationShutdown {
  private buffer: Pending[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private lingering?: NodeJS.Timeout;
  private flushing = false;
  private readonly logger = new Logger('attempt-writer');
  private abandoned = false;

  constructor(
    private readonly store: DeliveryStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly admitter: DeliveryAdmitter,
    private readonly outages: OutageMonitor,
  ) {}

  record(record: AttemptRecord, group?: AnswerGroup): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (group) group.firstRecordAt ??= performance.now();
      this.buffer.push({ record, group, resolve, reject });
      this.schedule();
    });
  }

  /** One send of the group has ended (its record, if it makes one, follows): its siblings wait one less. */
  answered(group: AnswerGroup): void {
    group.outstanding--;
    if (this.buffer.length) this.schedule();
  }

  /**
   * A record may be committed once its batch job awaits no more answers (a record of a job of its own has
   * no siblings to wait for) or has waited RECORD_LINGER_MS for them. Per record, not per buffer: a job still
   * waiting for a slow answer holds back its own records, never another endpoint's.
   */
  private ready({ group }: Pending, now: number): boolean {
    return !group || group.outstanding <= 0 || now >= group.firstRecordAt! + RECORD_LINGER_MS;
  }

  /** Flushes the ready records (one commit at a time), or waits until the first waiting one is. */
  private schedule(): void {
    if (this.flushing || this.inFlight.size >= MAX_IN_FLIGHT) return;
    const now = performance.now();
    let due = Infinity;
    for (const pending of this.buffer) {
      if (this.ready(pending, now)) {
        clearTimeout(this.lingering);
        this.lingering = undefined;
        this.flushing = true;
        // setImmediate: records pushed in the same tick (e.g. a batch's unsent deliveries) join this flush.
        setImmediate(() => this.flushReady());
        return;
      }
      due = Math.min(due, pending.group!.firstRecordAt! + RECORD_LINGER_MS);
    }
    // Later jobs' deadlines are later: the timer set for the first stands until it fires or is cleared.
    if (due < Infinity && !this.lingering) {
      this.lingering = setTimeout(() => {
        this.lingering = undefined;
        if (!this.flushing) this.flushReady();
      }, due - now);
    }
  }

  private flushReady(): void {
    this.flushing = false;
    if (this.inFlight.size >= MAX_IN_FLIGHT) return;
    const now = performance.now();
    const ready: Pending[] = [];
    const waiting: Pending[] = [];
    for (const pending of this.buffer)
      (ready.length < RECORD_BATCH && this.ready(pending, now) ? ready : waiting).push(pending);
    this.buffer = waiting;
    if (ready.length) this.flush(ready);
    else this.schedule();
  }

  private flush(batch: Pending[]): void {
    const done = this.write(batch);
    this.inFlight.add(done);
    void done.finally(() => {
      this.inFlight.delete(done);
      if (this.buffer.length) this.schedule();
    });
  }

  /**
   * Commits a batch, retrying deadlocks and serialization failures. When the database refuses the data, the
   * records are retried one by one, so a record it refuses fails only its own job, not the 499 beside it.
   * While PostgreSQL is unreachable the batch waits for it: the attempts were sent, so their records must
   * reach the request log (the statement is atomic, so a failed try wrote nothing).
   */
  private async write(batch: Pending[], tries = 3): Promise<void> {
    if (this.abandoned) {
      batch.forEach((p) => p.reject(new Error('attempt records abandoned on shutdown')));
      return;
    }
    let recorded: Admission;
    try {
      recorded = await this.store.record(
        batch.map((p) => p.record),
        this.config.webhooks.autoDisableAfterDays,
      );
      batch.forEach((p) => p.resolve());
    } catch (error) {
      if (this.outages.report(error) === 'database') {
        await new Promise((resolve) => setTimeout(resolve, RECORD_OUTAGE_RETRY_MS));
        return this.write(batch, tries);
      }
      if (tries > 1 && lostRace(error)) return this.write(batch, tries - 1);
      if (batch.length > 1 && REFUSED_DATA.test((error as { code?: string }).code ?? ''))
        await Promise.all(batch.map((p) => this.write([p], 1)));
      else batch.forEach((p) => p.reject(error));
      return;
    }
    this.admitter.admitted(recorded);
  }

  /**
   * Gives up on records not yet written (their jobs are being handed back to the queue on a shutdown
   * timeout, so the attempt is made and logged again rather than logged twice).
   */
  abandon(): void {
    this.abandoned = true;
    this.buffer.splice(0).forEach((p) => p.reject(new Error('attempt records abandoned on shutdown')));
  }

  async onApplicationShutdown(): Promise<void> {
    while (this.buffer.length || this.inFlight.size) {
      if (this.buffer.length && this.inFlight.size < MAX_IN_FLIGHT)
        this.flush(this.buffer.splice(0, RECORD_BATCH));
      else await Promise.race(this.inFlight);
    }
  }
}
