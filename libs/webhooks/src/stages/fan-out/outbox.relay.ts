import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, AppConfig, OutageMonitor, Tracing, listenOn, tracing } from '@wharf/core';
import type { Client } from 'pg';
import { ADMIT_PAYLOAD, OUTBOX_CHANNEL } from '../../outbox/outbox.writer';
import { DeliveryStore } from '../../store/delivery.store';
import { DeliveryRow } from '../../store/job-rows.sql';
import { FAN_OUT_BATCH } from '../../tuning';
import { DeliveryAdmitter } from '../admission/delivery.admitter';

/**
 * Stage 1, fan-out: moves committed outbox events into deliveries (DeliveryStore.fanOut: one per matching
 * enabled endpoint, any number of workers sharing the outbox), queues the jobs of those it admitted at once
 * and has the DeliveryAdmitter admit the rest. Woken by NOTIFY at commit, with
 * polling as the fallback. A crash after the commit leaves admitted deliveries without a job, which the
 * sweeper queues, and waiting ones, which the admitter's periodic pass admits.
 */
@Injectable()
export class OutboxRelay implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('outbox-relay');
  private listener?: Client;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private again = false;
  private stopped = false;

  constructor(
    private readonly store: DeliveryStore,
    private readonly admitter: DeliveryAdmitter,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly outages: OutageMonitor,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.listen();
    this.timer = setInterval(() => this.kick(), this.config.webhooks.pollIntervalMs);
    this.kick();
  }

  private async listen(): Promise<void> {
    try {
      // The api notifies ADMIT_PAYLOAD when it puts deliveries back (resend, recover): only admission is due.
      this.listener = await listenOn(this.config.databaseUrl, OUTBOX_CHANNEL, {
        onNotify: (payload) => (payload === ADMIT_PAYLOAD ? this.admitter.admitDue() : this.kick()),
        onLost: (error) => {
          this.listener = undefined;
          if (error && !this.outages.report(error))
            this.logger.warn(`LISTEN connection lost (${error.message}); polling until it is back`);
        },
      });
    } catch (error) {
      if (!this.outages.report(error))
        this.logger.warn(`LISTEN unavailable (${(error as Error).message}); polling`);
    }
  }

  /** Runs a drain now, or once more right after the one in progress. */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.drain()
      .catch((error: Error) => {
        if (!this.outages.report(error)) this.logger.error(`relay failed: ${error.message}`);
      })
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
    if (!this.listener && !this.stopped) void this.listen();
  }

  private async drain(): Promise<void> {
    while (!this.stopped && (await this.dispatchBatch()) === FAN_OUT_BATCH);
  }

  /** Claims one batch of events and fans them out; returns how many events it claimed. */
  async dispatchBatch(): Promise<number> {
    const started = Date.now();
    const { claimed, admission } = await this.store.fanOut();
    const traces = tracing();
    if (traces) traceFanOut(traces, admission.admitted, started);
    this.admitter.admitted(admission);
    return claimed;
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.running;
    await this.listener?.end().catch(() => undefined);
  }
}

/**
 * A fan-out span in the trace of each traced event the batch admitted deliveries of (one statement fans out
 * the whole batch: each span covers it). An event whose deliveries all wait for room is traced from its
 * attempts on.
 */
function traceFanOut(traces: Tracing, admitted: DeliveryRow[], started: number): void {
  const events = new Map<string, { event: DeliveryRow; deliveries: number }>();
  for (const row of admitted) {
    if (row.trace_context === null) continue;
    const seen = events.get(row.event_id);
    if (seen) seen.deliveries++;
    else events.set(row.event_id, { event: row, deliveries: 1 });
  }
  for (const { event, deliveries } of events.values()) {
    traces
      .start('webhook fan-out', {
        parent: event.trace_context,
        startTime: started,
        attributes: {
          'wharf.event.id': event.event_id,
          'wharf.event.name': event.name,
          'wharf.deliveries.admitted': deliveries,
        },
      })
      .end();
  }
}
