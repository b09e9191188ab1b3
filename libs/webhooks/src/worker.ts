import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { DELIVERY_QUEUE } from './jobs/delivery-job';
import { DeliveryQueueCloser } from './jobs/delivery-queue-closer';
import { DeliveryMetrics } from './metrics/delivery-metrics';
import { MetricsListener } from './metrics/metrics-listener';
import { DeliveryAdmitter } from './stages/admission/delivery.admitter';
import { DeliveryDispatcher } from './stages/dispatch/delivery.dispatcher';
import { DeliveryProcessor } from './stages/dispatch/delivery.processor';
import { EndpointCache } from './stages/dispatch/endpoint-cache';
import { EndpointRateLimiter } from './stages/dispatch/endpoint-rate-limiter';
import { EndpointSendLeases } from './stages/dispatch/endpoint-send-leases';
import { RateGate } from './stages/dispatch/rate-gate';
import { SendAttempt } from './stages/dispatch/send-attempt';
import { ThinEnvelopes } from './stages/dispatch/thin-envelope';
import { OutboxRelay } from './stages/fan-out/outbox.relay';
import { AttemptWriter } from './stages/record/attempt-writer';
import { DeliverySweeper } from './stages/recovery/delivery.sweeper';
import { LostJobs } from './stages/recovery/lost-jobs';
import { PartitionMaintainer } from './stages/lifecycle/partition.maintainer';
import { ErasureRunner } from './stages/lifecycle/erasure.runner';
import { ListenSessionReaper } from './stages/lifecycle/listen-session.reaper';
import { DESTINATION } from './transport/destination';
import { DestinationRouter } from './destinations/destination-router';

export { DeliveryAdmitter } from './stages/admission/delivery.admitter';
export { DeliveryProcessor } from './stages/dispatch/delivery.processor';
export { EndpointSendLeases } from './stages/dispatch/endpoint-send-leases';
export { OutboxRelay } from './stages/fan-out/outbox.relay';
export { DeliverySweeper } from './stages/recovery/delivery.sweeper';
export { PartitionMaintainer } from './stages/lifecycle/partition.maintainer';
export { ErasureRunner } from './stages/lifecycle/erasure.runner';
export { ListenSessionReaper } from './stages/lifecycle/listen-session.reaper';
/** The request-log purge is now partition retention (its purge() drops partitions; no DELETE). */
export { PartitionMaintainer as RequestLogPurger } from './stages/lifecycle/partition.maintainer';
export { ADMIT, DUE_ENDPOINTS } from './store/admit.sql';
export { attemptBatchJson } from './store/attempt-batch';
export { FAN_OUT } from './store/fan-out.sql';
export { LIST_UNSUCCESSFUL_EVENTS } from './store/events.sql';
export { RECORD_ATTEMPTS } from './store/record.sql';
export { QUEUE_WINDOW_CAPS } from './tuning';

/**
 * PostgreSQL settings of the worker's connections. It runs a few prepared statements thousands of times,
 * each written for a generic plan that finds its rows through an index: left to choose, PostgreSQL re-planned
 * them per execution in some runs and not others, and a generic plan made while the deliveries table was
 * small or never analysed hashed a sequential scan of it on every batch from then on. No bitmap scans
 * either: a bitmap scan never marks an index entry dead, so the count of an endpoint's admitted deliveries
 * would read the entry of every delivery finished since the last vacuum, on every count.
 */
export const WORKER_DATABASE_SETTINGS = {
  plan_cache_mode: 'force_generic_plan',
  enable_seqscan: 'off',
  enable_bitmapscan: 'off',
};

/** The consumer side (worker process only): the delivery stages, fan-out to recovery. */
@Module({
  imports: [BullModule.registerQueue({ name: DELIVERY_QUEUE })],
  providers: [
    DeliveryQueueCloser,
    OutboxRelay,
    DeliveryAdmitter,
    DeliveryProcessor,
    DeliveryDispatcher,
    EndpointCache,
    EndpointRateLimiter,
    RateGate,
    EndpointSendLeases,
    SendAttempt,
    ThinEnvelopes,
    // The api's test sends share the instance (its OAuth2 token cache, its broker connections) the extension provides.
    { provide: DESTINATION, useExisting: DestinationRouter },
    AttemptWriter,
    DeliverySweeper,
    LostJobs,
    PartitionMaintainer,
    ErasureRunner,
    ListenSessionReaper,
    DeliveryMetrics,
    MetricsListener,
  ],
})
export class WebhooksWorkerModule {}
