import { Logger } from '@nestjs/common';
import { OutageMonitor } from '@wharf/core';
import { MAX_START_JITTER_MS } from '../../tuning';

/**
 * Runs `task` soon after start (after a short random jitter, so a worker that lives less than one
 * interval still runs it) and then every `everyMs`, never two at once; stop() waits for a run in progress.
 * Failures because PostgreSQL or Redis is down go to the outage monitor (one line per outage).
 */
export class PeriodicTask {
  private timer?: NodeJS.Timeout;
  private first?: NodeJS.Timeout;
  private running?: Promise<unknown>;

  constructor(
    private readonly logger: Logger,
    private readonly task: () => Promise<unknown>,
    private readonly outages?: OutageMonitor,
  ) {}

  start(everyMs: number): void {
    this.first = setTimeout(() => this.run(), Math.random() * Math.min(MAX_START_JITTER_MS, everyMs));
    this.first.unref();
    this.timer = setInterval(() => this.run(), everyMs);
    this.timer.unref();
  }

  private run(): void {
    this.running ??= this.task()
      .catch((error: Error) => {
        if (!this.outages?.report(error)) this.logger.error(`${error.message}`);
      })
      .finally(() => (this.running = undefined));
  }

  async stop(): Promise<void> {
    clearTimeout(this.first);
    clearInterval(this.timer);
    await this.running;
  }
}
