import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { DeliveryQueueCloser } from './delivery/delivery-queue-closer';
import { DELIVERY_QUEUE } from './delivery/delivery-queue';
import { AttemptWriter } from './worker/attempt-writer';
import { DeliveryAdmitter } from './worker/delivery.admitter';
import { DeliveryMetrics } from './worker/delivery-metrics';
import { DeliveryProcessor } from './worker/delivery.processor';
import { MetricsListener } from './worker/metrics-listener';
import { EndpointCache } from './worker/endpoint-cache';
import { EndpointRateLimiter } from './worker/endpoint-rate-limiter';
import { EndpointSendLeases } from './worker/endpoint-send-leases';
import { DeliverySweeper } from './worker/delivery.sweeper';
import { OutboxRelay } from './worker/outbox.relay';
import { RequestLogPurger } from './worker/request-log.purger';

export { DeliveryAdmitter } from './worker/delivery.admitter';
export { DeliveryProcessor } from './worker/delivery.processor';
export { DeliverySweeper } from './worker/delivery.sweeper';
export { EndpointSendLeases } from './worker/endpoint-send-leases';
export { OutboxRelay } from './worker/outbox.relay';
export { RequestLogPurger } from './worker/request-log.purger';
export { PREFETCH_CAPS, RECORD_ATTEMPTS, recordAttempts } from './worker/attempt-recorder';
export { attemptBatchJson } from './worker/attempt-batch';
export { ADMIT, DUE_ENDPOINTS } from './worker/delivery.admitter';
export { DISPATCH_BATCH } from './worker/outbox.relay';

/**
 * PostgreSQL settings of the worker's connections. It runs a few prepared statements thousands of times,
 * written for their generic plans: left to choose, PostgreSQL re-planned the attempt recorder's (a dozen
 * CTEs) on every execution in some runs and not in others, which swung its CPU per delivery by about a
 * third. Every one of them finds its rows through an index, and a generic plan is made once per
 * connection from the statistics of that moment: made while webhook_deliveries was small or never
 * analysed (a new install, or autovacuum off), the recorder's hashed a sequential scan of the whole table
 * on every batch from then on (30% of PostgreSQL's CPU in bench:webhooks at 20,000 deliveries). No bitmap
 * scans either: planned from a backlog's statistics, the count of an endpoint's admitted deliveries was a
 * bitmap scan, which never marks an index entry dead, so it read the entry of every delivery finished since
 * the last vacuum on every count (0.40 ms with 8,400 of them, against 0.08 ms for the index scan that
 * marks them once).
 */
export const WORKER_DATABASE_SETTINGS = {
  plan_cache_mode: 'force_generic_plan',
  enable_seqscan: 'off',
  enable_bitmapscan: 'off',
};

/** The consumer side (worker process only): outbox relay, admitter, sweeper and the delivery processor. */
@Module({
  imports: [BullModule.registerQueue({ name: DELIVERY_QUEUE })],
  providers: [
    DeliveryQueueCloser,
    OutboxRelay,
    DeliverySweeper,
    DeliveryProcessor,
    DeliveryAdmitter,
    EndpointCache,
    EndpointRateLimiter,
    EndpointSendLeases,
    AttemptWriter,
    RequestLogPurger,
    DeliveryMetrics,
    MetricsListener,
  ],
})
export class WebhooksWorkerModule {}
