import { Logger } from '@nestjs/common';
import { Job, Worker } from 'bullmq';

/**
 * The jobs a worker is processing, so a shutdown can say how many it waits for and, past
 * SHUTDOWN_TIMEOUT_MS, hand the rest back to the queue instead of waiting for them without bound.
 */
export class InFlightJobs {
  private readonly jobs = new Map<string, { job: Job; token?: string; deliveries: number }>();
  private readonly released = new Set<string>();
  private emptied?: () => void;

  /** `deliveries`: how many the job sends (a batch job sends several). */
  track(job: Job, token?: string, deliveries = 1): void {
    this.jobs.set(job.id!, { job, token, deliveries });
  }

  untrack(job: Job): void {
    this.jobs.delete(job.id!);
    if (!this.jobs.size) this.emptied?.();
  }

  /** A released job was handed back to the queue: its attempt must not be recorded here too. */
  isReleased(job: Job): boolean {
    return this.released.has(job.id!);
  }

  /** Deliveries being sent, over all jobs. */
  get size(): number {
    let deliveries = 0;
    for (const { deliveries: n } of this.jobs.values()) deliveries += n;
    return deliveries;
  }

  /**
   * Stops taking jobs, waits up to `timeoutMs` for those in flight, then moves the rest back to the wait
   * list (if Redis is unreachable, their locks expire and the stalled-job check of any worker brings them
   * back) and closes the worker. `onRelease` runs before they are handed back.
   */
  async drain(worker: Worker, timeoutMs: number, logger: Logger, onRelease: () => void): Promise<void> {
    await worker.pause(true);
    const inFlight = this.size;
    logger.log({ msg: `shutting down with ${inFlight} deliveries in flight`, inFlight });
    const finished = await new Promise<boolean>((resolve) => {
      if (!this.jobs.size) return resolve(true);
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.emptied = () => {
        clearTimeout(timer);
        resolve(true);
      };
    });
    if (finished) {
      // Said as soon as it is true: closing the worker's connections comes after, and is not about them.
      logger.log({ msg: 'drained: every delivery in flight finished', inFlight });
      await worker.close();
      return;
    }
    const left = [...this.jobs.values()];
    const released = this.size;
    for (const { job } of left) this.released.add(job.id!);
    onRelease();
    const moved = await Promise.all(
      left.map(({ job, token }) =>
        job.moveToWait(token).then(
          () => true,
          () => false,
        ),
      ),
    );
    await worker.close(true);
    logger.warn({
      msg: `shutdown timeout: handed ${released} unfinished deliveries back to the queue`,
      released,
      movedNow: moved.filter(Boolean).length,
    });
  }
}
