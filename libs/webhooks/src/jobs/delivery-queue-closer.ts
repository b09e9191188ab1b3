import { InjectQueue } from '@nestjs/bullmq';
import { BeforeApplicationShutdown, Injectable } from '@nestjs/common';
import { Queue } from 'bullmq';
import { setTimeout as sleep } from 'node:timers/promises';
import { QUEUE_READY_WAIT_MS as READY_WAIT_MS } from '../tuning';
import { DELIVERY_QUEUE } from './delivery-job';

/**
 * Lets the delivery queue's Redis connection finish connecting before Nest closes it. BullMQ (5.81) closing
 * a connection that is still initialising drops its listeners and then re-emits the aborted init as an
 * 'error' nobody listens to, which kills the process: an api built and closed at once (client generation,
 * tests) exited 1 about one time in three.
 */
@Injectable()
export class DeliveryQueueCloser implements BeforeApplicationShutdown {
  constructor(@InjectQueue(DELIVERY_QUEUE) private readonly queue: Queue) {}

  async beforeApplicationShutdown(): Promise<void> {
    const ready = this.queue.waitUntilReady().then(
      () => undefined,
      () => undefined,
    );
    await Promise.race([ready, sleep(READY_WAIT_MS, undefined, { ref: false })]);
  }
}
