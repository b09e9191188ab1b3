import { Injectable } from '@nestjs/common';
import { DelayedError, Job } from 'bullmq';
import { DeliveryJobData } from '../../jobs/delivery-job';
import { SLEEP_FOR_SLOT_MS, WAKE_BEFORE_SLOT_MS } from '../../tuning';
import { EndpointRateLimiter } from './endpoint-rate-limiter';

/**
 * The rate-limit gate of dispatch: a job whose endpoint has `rate_limit_per_second` sends only in the slot
 * it reserved. A slot near enough is waited for in place; a later one in BullMQ's delayed set (the job
 * throws DelayedError), holding no worker slot or send lease meanwhile.
 */
@Injectable()
export class RateGate {
  constructor(private readonly limiter: EndpointRateLimiter) {}

  async pass(job: Job<DeliveryJobData>, perSecond: number | null, token?: string): Promise<void> {
    if (perSecond === null) return;
    const data = job.data;
    let held = data.rateSlot;
    for (;;) {
      const { slot, waitMs } = await this.limiter.reserve(data.endpoint, perSecond, held);
      if (waitMs === 0) return;
      if (waitMs > SLEEP_FOR_SLOT_MS) {
        await job.updateData({ ...data, rateSlot: slot });
        await job.moveToDelayed(Date.now() + waitMs - WAKE_BEFORE_SLOT_MS, token);
        throw new DelayedError();
      }
      // Confirmed again after the sleep, as after a delay: a timer that fires late on a busy event loop
      // would otherwise send past the grace, bunched with the next slot's send.
      await new Promise((resolve) => setTimeout(resolve, waitMs));
      held = slot;
    }
  }
}
