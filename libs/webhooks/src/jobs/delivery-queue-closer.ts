import { InjectQueue } from '@nestjs/bullmq';
import { BeforeApplicationShutdown, Injectable } from '@nestjs/common';
import { OutageMonitor } from '@wharf/core';
import { Queue } from 'bullmq';
import { DELIVERY_QUEUE } from './delivery-job';
import { reportQueueErrors } from './queue-errors';
import { untilQueueSettles } from './queue-ready';

/**
 * The worker's delivery queue: its errors are reported, and Nest closes it once its connection has
 * settled (see untilQueueSettles).
 */
@Injectable()
export class DeliveryQueueCloser implements BeforeApplicationShutdown {
  constructor(
    @InjectQueue(DELIVERY_QUEUE) private readonly queue: Queue,
    outages: OutageMonitor,
  ) {
    reportQueueErrors(queue, 'delivery queue', outages);
  }

  beforeApplicationShutdown(): Promise<void> {
    return untilQueueSettles(this.queue);
  }
}
