import { JobsOptions } from 'bullmq';

export const DELIVERY_QUEUE = 'webhook-deliveries';

/** One job per delivery, its id the delivery uuid (so re-enqueueing an existing job is a no-op). */
export function deliveryJob(
  deliveryUuid: string,
  maxAttempts: number,
): { name: string; data: { delivery: string }; opts: JobsOptions } {
  return {
    name: 'deliver',
    data: { delivery: deliveryUuid },
    opts: {
      jobId: deliveryUuid,
      attempts: maxAttempts,
      backoff: { type: 'custom' },
      removeOnComplete: true,
      removeOnFail: true,
    },
  };
}
