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
import { DeliverySweeper } from './worker/delivery.sweeper';
import { OutboxRelay } from './worker/outbox.relay';
import { RequestLogPurger } from './worker/request-log.purger';

export { DeliveryAdmitter } from './worker/delivery.admitter';
export { DeliveryProcessor } from './worker/delivery.processor';
export { DeliverySweeper } from './worker/delivery.sweeper';
export { OutboxRelay } from './worker/outbox.relay';
export { RequestLogPurger } from './worker/request-log.purger';
export { recordAttempts } from './worker/attempt-recorder';

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
    AttemptWriter,
    RequestLogPurger,
    DeliveryMetrics,
    MetricsListener,
  ],
})
export class WebhooksWorkerModule {}
