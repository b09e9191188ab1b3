import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { DELIVERY_QUEUE } from './delivery/delivery-queue';
import { AttemptWriter } from './worker/attempt-writer';
import { DeliveryMetrics } from './worker/delivery-metrics';
import { DeliveryProcessor } from './worker/delivery.processor';
import { MetricsListener } from './worker/metrics-listener';
import { EndpointCache } from './worker/endpoint-cache';
import { DeliverySweeper } from './worker/delivery.sweeper';
import { OutboxRelay } from './worker/outbox.relay';
import { RequestLogPurger } from './worker/request-log.purger';

export { DeliveryProcessor, RetryLater, backoffStrategy } from './worker/delivery.processor';
export { DeliverySweeper } from './worker/delivery.sweeper';
export { OutboxRelay } from './worker/outbox.relay';
export { RequestLogPurger } from './worker/request-log.purger';
export { recordAttempts } from './worker/attempt-recorder';

/** The consumer side (worker process only): outbox relay, sweeper and the delivery processor. */
@Module({
  imports: [BullModule.registerQueue({ name: DELIVERY_QUEUE })],
  providers: [
    OutboxRelay,
    DeliverySweeper,
    DeliveryProcessor,
    EndpointCache,
    AttemptWriter,
    RequestLogPurger,
    DeliveryMetrics,
    MetricsListener,
  ],
})
export class WebhooksWorkerModule {}
