import { InjectQueue } from '@nestjs/bullmq';
import { BeforeApplicationShutdown, Injectable } from '@nestjs/common';
import { Queue } from 'bullmq';
import { DELIVERY_QUEUE } from './delivery-job';
import { untilQueueSettles } from './queue-ready';

/** The worker's delivery queue is closed by Nest once its connection has settled (see untilQueueSettles). */
@Injectable()
export class DeliveryQueueCloser implements BeforeApplicationShutdown {
  constructor(@InjectQueue(DELIVERY_QUEUE) private readonly queue: Queue) {}

  beforeApplicationShutdown(): Promise<void> {
    return untilQueueSettles(this.queue);
  }
}
