import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Metrics } from '@wharf/core';
import { Queue } from 'bullmq';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { DataSource } from 'typeorm';
import { DELIVERY_QUEUE } from '../jobs/delivery-job';
import { AttemptOutcome } from '../store/delivery-state';
import { METRICS_TOP_ENDPOINTS as TOP_ENDPOINTS } from '../tuning';
import { OutboxStore } from '../store/outbox.store';

/**
 * The worker's delivery series: attempts by outcome and their latency, per-endpoint in-flight and failure
 * counts for the top endpoints, and, read at scrape time, queue depth and outbox lag (global values: every
 * worker reports the same, so dashboards take the max).
 */
@Injectable()
export class DeliveryMetrics {
  private readonly deliveries: Counter<'outcome'>;
  private readonly latency: Histogram<'outcome'>;
  private readonly inFlight = new Map<string, number>();
  private readonly failures = new Map<string, number>();
  /** Each outcome's series: prom-client otherwise hashes a labels object on every inc and observe. */
  private readonly byOutcome = new Map<
    AttemptOutcome,
    { count: ReturnType<Counter<'outcome'>['labels']>; time: ReturnType<Histogram<'outcome'>['labels']> }
  >();

  constructor(
    metrics: Metrics,
    @InjectQueue(DELIVERY_QUEUE) queue: Queue,
    @InjectDataSource() dataSource: DataSource,
    outbox: OutboxStore,
  ) {
    const registers = [metrics.registry];
    this.deliveries = new Counter({
      name: 'wharf_webhook_deliveries_total',
      help: 'Delivery attempts made, by outcome (successful, retrying = failed with a retry left, failed = final)',
      labelNames: ['outcome'],
      registers,
    });
    this.latency = new Histogram({
      name: 'wharf_webhook_attempt_duration_seconds',
      help: 'Delivery attempt latency (request sent to response read), by outcome',
      labelNames: ['outcome'],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    topEndpointGauges(registers, this.inFlight, this.failures);
    scrapedGauges(registers, queue, dataSource, outbox);
  }

  started(endpoint: string): void {
    this.inFlight.set(endpoint, (this.inFlight.get(endpoint) ?? 0) + 1);
  }

  /** An attempt ended with a response or an error (`seconds` of sending); undefined outcome = no attempt made. */
  finished(endpoint: string, outcome?: AttemptOutcome, seconds?: number): void {
    const left = (this.inFlight.get(endpoint) ?? 1) - 1;
    if (left > 0) this.inFlight.set(endpoint, left);
    else this.inFlight.delete(endpoint);
    if (!outcome) return;
    let series = this.byOutcome.get(outcome);
    if (!series) {
      const labels = { outcome };
      this.byOutcome.set(
        outcome,
        (series = { count: this.deliveries.labels(labels), time: this.latency.labels(labels) }),
      );
    }
    series.count.inc();
    if (seconds !== undefined) series.time.observe(seconds);
    if (outcome !== 'successful') this.failures.set(endpoint, (this.failures.get(endpoint) ?? 0) + 1);
  }
}

function top(counts: Map<string, number>): [string, number][] {
  return [...counts].sort((a, b) => b[1] - a[1]).slice(0, TOP_ENDPOINTS);
}

/** Per-endpoint in-flight and failure counts of this worker's busiest and most failing endpoints. */
function topEndpointGauges(
  registers: Registry[],
  inFlight: Map<string, number>,
  failures: Map<string, number>,
) {
  new Gauge({
    name: 'wharf_webhook_endpoint_in_flight',
    help: `Attempts in flight per endpoint (the ${TOP_ENDPOINTS} busiest endpoints of this worker)`,
    labelNames: ['endpoint'],
    registers,
    collect() {
      this.reset();
      for (const [endpoint, n] of top(inFlight)) this.set({ endpoint }, n);
    },
  });
  new Gauge({
    name: 'wharf_webhook_endpoint_failures',
    help: `Failed attempts since this worker started, per endpoint (the ${TOP_ENDPOINTS} most failing)`,
    labelNames: ['endpoint'],
    registers,
    collect() {
      this.reset();
      for (const [endpoint, n] of top(failures)) this.set({ endpoint }, n);
    },
  });
}

/** Endpoints of every company, by status. */
const ENDPOINTS_BY_STATUS = `SELECT s.status, count(ep.uuid)::int AS n FROM unnest(ARRAY['enabled', 'disabled']) s(status)
  LEFT JOIN webhook_endpoints ep ON ep.status = s.status GROUP BY s.status`;

/** The series read at scrape time: queue depth, endpoints by status, outbox lag. */
function scrapedGauges(registers: Registry[], queue: Queue, dataSource: DataSource, outbox: OutboxStore) {
  new Gauge({
    name: 'wharf_webhook_queue_jobs',
    help: 'Delivery jobs in the queue, by state',
    labelNames: ['state'],
    registers,
    async collect() {
      const counts = await queue.getJobCounts('waiting', 'active', 'delayed');
      for (const [state, n] of Object.entries(counts)) this.set({ state }, n);
    },
  });
  new Gauge({
    name: 'wharf_webhook_endpoints',
    help: 'Webhook endpoints of every company, by status (enabled, disabled)',
    labelNames: ['status'],
    registers,
    async collect() {
      const rows: { status: string; n: number }[] = await dataSource.query(ENDPOINTS_BY_STATUS);
      for (const row of rows) this.set({ status: row.status }, row.n);
    },
  });
  new Gauge({
    name: 'wharf_outbox_lag_seconds',
    help: 'Age of the oldest outbox event not yet dispatched (0 when none)',
    registers,
    async collect() {
      this.set(await outbox.lag());
    },
  });
}
