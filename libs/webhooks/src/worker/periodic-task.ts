import { Logger } from '@nestjs/common';

/** Runs `task` every `everyMs`, never two at once; stop() waits for a run in progress. */
export class PeriodicTask {
  private timer?: NodeJS.Timeout;
  private running?: Promise<unknown>;

  constructor(
    private readonly logger: Logger,
    private readonly task: () => Promise<unknown>,
  ) {}

  start(everyMs: number): void {
    this.timer = setInterval(() => {
      this.running ??= this.task()
        .catch((error: Error) => this.logger.error(`${error.message}`))
        .finally(() => (this.running = undefined));
    }, everyMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }
}
