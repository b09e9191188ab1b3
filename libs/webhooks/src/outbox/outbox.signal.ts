import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, AppConfig, OutageMonitor } from '@wharf/core';
import { Client } from 'pg';

export const OUTBOX_CHANNEL = 'wharf_webhook_events';
/** The application_name of the connection that wakes the relay for the api's writes. */
export const OUTBOX_SIGNAL_APPLICATION = 'wharf-outbox-signal';
/** How long shutdown waits for the signal on its way before closing its connection. */
const LAST_SIGNAL_MS = 2000;

/**
 * Wakes the relay after the api's writes have committed, on a connection of its own, one NOTIFY at a time:
 * writes that finish while one is on its way share the next. A NOTIFY inside a write's own transaction
 * takes PostgreSQL's cluster-wide notify lock at commit and holds it through the commit's WAL flush, so
 * every notifying write committed one after the other. A lost signal (a crash just after the commit, or
 * PostgreSQL gone since) is covered by the relay's polling; an outage is the monitor's to log, once.
 */
@Injectable()
export class OutboxSignal implements OnApplicationShutdown {
  private readonly logger = new Logger('outbox-signal');
  private client?: Promise<Client>;
  /** The signal on its way, if any. */
  private sending?: Promise<void>;
  private again = false;
  private stopped = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly outages: OutageMonitor,
  ) {}

  /** Signals the relay now, or once more right after the signal on its way. */
  readonly poke = (): void => {
    if (this.stopped) return;
    if (this.sending) {
      this.again = true;
      return;
    }
    this.sending = this.send().finally(() => {
      this.sending = undefined;
      if (this.again) {
        this.again = false;
        this.poke();
      }
    });
  };

  private async send(): Promise<void> {
    try {
      const client = await (this.client ??= this.connect());
      await client.query(`NOTIFY ${OUTBOX_CHANNEL}`);
    } catch (error) {
      if (this.stopped) return;
      if (!this.outages.report(error))
        this.logger.warn(`could not wake the relay (${(error as Error).message}); it polls meanwhile`);
      const client = this.client;
      this.client = undefined;
      void client?.then((c) => c.end()).catch(() => undefined);
    }
  }

  private async connect(): Promise<Client> {
    const client = new Client({
      connectionString: this.config.databaseUrl,
      application_name: OUTBOX_SIGNAL_APPLICATION,
    });
    // A broken connection is dropped (and closed): the next signal opens another.
    client.on('error', () => {
      this.client = undefined;
      void client.end().catch(() => undefined);
    });
    await client.connect();
    return client;
  }

  /** The signal on its way still goes out (the last writes' relay wakes now, not at its next poll). */
  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.sending,
      new Promise((resolve) => (timer = setTimeout(resolve, LAST_SIGNAL_MS).unref())),
    ]);
    clearTimeout(timer);
    const client = this.client;
    this.client = undefined;
    await client?.then((c) => c.end()).catch(() => undefined);
  }
}
