import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { APP_CONFIG, AppConfig } from '@wharf/core';
import { DataSource } from 'typeorm';
import { AttemptRecord, recordAttempts } from './attempt-recorder';

const MAX_BATCH = 500;
const LINGER_MS = 0;

interface Pending {
  record: AttemptRecord;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit for attempt records: each delivery awaits the commit of the batch it joined (so a job is
 * only acknowledged once its outcome is durable), while the database sees one transaction per batch.
 */
@Injectable()
export class AttemptWriter implements OnApplicationShutdown {
  private buffer: Pending[] = [];
  private flushing?: Promise<void>;
  private timer?: NodeJS.Timeout;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  record(record: AttemptRecord): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.buffer.push({ record, resolve, reject });
      if (this.buffer.length >= MAX_BATCH) this.schedule(0);
      else this.schedule(LINGER_MS);
    });
  }

  private schedule(delay: number): void {
    if (this.flushing || (this.timer && delay > 0)) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.flush(), delay);
  }

  private async flush(): Promise<void> {
    this.timer = undefined;
    const batch = this.buffer.splice(0, MAX_BATCH);
    if (!batch.length) return;
    this.flushing = recordAttempts(
      this.dataSource,
      this.config,
      batch.map((p) => p.record),
    ).then(
      () => batch.forEach((p) => p.resolve()),
      (error: unknown) => batch.forEach((p) => p.reject(error)),
    );
    await this.flushing;
    this.flushing = undefined;
    if (this.buffer.length) this.schedule(0);
  }

  async onApplicationShutdown(): Promise<void> {
    while (this.flushing || this.buffer.length) {
      if (this.flushing) await this.flushing;
      else await this.flush();
    }
  }
}
