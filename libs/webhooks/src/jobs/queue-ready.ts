import type { Queue } from 'bullmq';
import { setTimeout as sleep } from 'node:timers/promises';
import { QUEUE_READY_WAIT_MS as READY_WAIT_MS } from '../tuning';

/**
 * Lets a queue's Redis connection finish connecting before it is closed. BullMQ (5.81) closing a
 * connection that is still initialising drops its listeners and then re-emits the aborted init as an
 * 'error' nobody listens to, which kills the process: an app built and closed at once (client generation,
 * tests) exited 1 about one time in three.
 */
export async function untilQueueSettles(queue: Queue): Promise<void> {
  const ready = queue.waitUntilReady().then(
    () => undefined,
    () => undefined,
  );
  await Promise.race([ready, sleep(READY_WAIT_MS, undefined, { ref: false })]);
}
