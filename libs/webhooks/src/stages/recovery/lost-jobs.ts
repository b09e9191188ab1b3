import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { LOST_JOBS_QUIET_MS } from '../../tuning';

/**
 * BullMQ's errors for a job Redis no longer holds, or no longer holds locked for this worker (Redis
 * restarted without its data, say); the group that matched names the job.
 */
const JOB_GONE =
  /^(?:Missing (?:key|lock) for job (\S+)\. |could not renew lock for job (\S+)$|Job (\S+) is not in the \w+ state\. |Lock mismatch for job (\S+)\. )/;

/** The line lists at most this many job and delivery ids. */
const LISTED = 20;

interface Recovery {
  since: number;
  last: number;
  jobs: Set<string>;
  requeued: number;
  deliveries: string[];
}

/**
 * A job Redis lost is no fault of the worker's: its delivery is still in PostgreSQL, an attempt in flight
 * is recorded there, and the sweeper queues again every delivery left without a job. BullMQ reports
 * such a job at each of its lock renewals and when it finishes; each recovery is one line, with what the
 * sweeper queued again, once nothing more was lost or queued again for LOST_JOBS_QUIET_MS.
 */
@Injectable()
export class LostJobs implements OnApplicationShutdown {
  private readonly logger = new Logger('delivery-sweeper');
  private recovery?: Recovery;

  /** Takes a BullMQ error that says a job is gone from Redis (true), or leaves it (false). */
  readonly noted = (error: Error): boolean => {
    const match = JOB_GONE.exec(error.message);
    if (!match) return false;
    this.open().jobs.add(match.slice(1).find(Boolean)!);
    return true;
  };

  /** A sweep's result: the deliveries it queued again, if any. */
  swept(deliveries: string[]): void {
    if (deliveries.length) {
      const recovery = this.open();
      recovery.requeued += deliveries.length;
      recovery.deliveries.push(...deliveries.slice(0, Math.max(0, LISTED - recovery.deliveries.length)));
    } else if (this.recovery && Date.now() - this.recovery.last >= LOST_JOBS_QUIET_MS) this.report();
  }

  private open(): Recovery {
    const now = Date.now();
    this.recovery ??= { since: now, last: now, jobs: new Set(), requeued: 0, deliveries: [] };
    this.recovery.last = now;
    return this.recovery;
  }

  private report(): void {
    const { since, jobs, requeued, deliveries } = this.recovery!;
    this.recovery = undefined;
    const gone = jobs.size
      ? `; ${jobs.size} jobs in flight were gone from Redis when they renewed their lock or finished`
      : '';
    this.logger.warn({
      msg: `recovered deliveries whose jobs Redis lost: queued ${requeued} again from PostgreSQL${gone}`,
      requeued,
      deliveries,
      lostJobs: jobs.size,
      jobs: [...jobs].slice(0, LISTED),
      seconds: Number(((Date.now() - since) / 1000).toFixed(1)),
    });
  }

  onApplicationShutdown(): void {
    if (this.recovery) this.report();
  }
}
