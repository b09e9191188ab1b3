import type { Pool } from 'pg';
import { prepared } from '../database/pool';
import { PURGE_EXPIRED } from './idempotency.sql';

/** Keys deleted per statement: short statements, each holding few row locks. */
export const PURGE_BATCH = 1000;
/** How often expired keys are looked for. */
const PURGE_EVERY_MS = 5 * 60_000;

/**
 * Removes expired idempotency keys in batches read off the expiry index (never one DELETE of a day's keys),
 * a short pause between batches so the api's own statements keep their share of the database.
 */
export class IdempotencyPurge {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;
  private stopped = false;

  constructor(private readonly pool: Pool) {}

  start(): void {
    this.timer = setInterval(() => void this.purge().catch(() => undefined), PURGE_EVERY_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running?.catch(() => undefined);
  }

  /** Deletes every key expired now; returns how many. One run at a time per process. */
  purge(): Promise<number> {
    this.running ??= this.batches().finally(() => (this.running = undefined));
    return this.running;
  }

  private async batches(): Promise<number> {
    let total = 0;
    for (;;) {
      const { rowCount } = await this.pool.query(prepared(PURGE_EXPIRED, [PURGE_BATCH]));
      total += rowCount ?? 0;
      if ((rowCount ?? 0) < PURGE_BATCH || this.stopped) return total;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
