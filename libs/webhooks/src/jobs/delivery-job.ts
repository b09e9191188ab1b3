import { JobsOptions } from 'bullmq';
import { JOB_RETRY_DELAY_MS } from '../tuning';

export const DELIVERY_QUEUE = 'webhook-deliveries';

/** A job that sends one delivery. */
export const DELIVER = 'deliver';
/** A job that sends first attempts at one endpoint admitted together. */
export const DELIVER_BATCH = 'deliver-batch';

/** Everything one delivery attempt needs, carried in the job so the worker need not read it back. */
export interface DeliveryJobData {
  delivery: string;
  endpoint: string;
  /** The endpoint's updated_at (ms) when enqueued: the worker reloads a cached endpoint older than this. */
  endpointVersion: number;
  company: string;
  eventId: string;
  event: string;
  /** The exact envelope bytes to sign and send. */
  body: string;
  /** Attempts already made (from PostgreSQL, so counting survives Redis losing the job). */
  attempts: number;
  /** A send slot reserved under the endpoint's rate limit (Redis clock, ms), kept while the job waits for it. */
  rateSlot?: number;
  /** The endpoint's sends at once when admitted (max_in_flight, 1 while throttled): see EndpointSendLeases. */
  cap: number;
  /** The trace context of the write that made the event, when it was traced: the attempt's span joins it. */
  trace?: string;
}

/** One delivery of a batch job: the endpoint and company are the job's. */
export type BatchedDelivery = Pick<
  DeliveryJobData,
  'delivery' | 'eventId' | 'event' | 'body' | 'attempts' | 'trace'
>;

/** First attempts at one endpoint admitted by one statement, sent by one job. */
export interface DeliveryBatchJobData {
  endpoint: string;
  endpointVersion: number;
  company: string;
  cap: number;
  deliveries: BatchedDelivery[];
}

/**
 * A single delivery's job id: the delivery and the attempts made before it. Enqueueing the same admission
 * again (the sweeper) is a no-op, while a retry, admitted after the previous attempt's job finished, can
 * never be mistaken for it.
 */
export const deliveryJobId = (delivery: string, attempts: number) => `${delivery}.${attempts}`;

/**
 * A batch job's id: its endpoint and its admission number, which every delivery of the batch keeps while it
 * is admitted, so the sweeper can name the job from PostgreSQL alone.
 */
export const deliveryBatchJobId = (endpoint: string, admission: string) => `${endpoint}.${admission}`;

/** The single-delivery job data of a batched delivery (a batch whose endpoint got a rate limit is split). */
export const unbatched = (batch: DeliveryBatchJobData, delivery: BatchedDelivery): DeliveryJobData => ({
  endpoint: batch.endpoint,
  endpointVersion: batch.endpointVersion,
  company: batch.company,
  cap: batch.cap,
  ...delivery,
});

/**
 * BullMQ options of a delivery job. Retries after a failed attempt are scheduled in PostgreSQL (the
 * delivery goes back to `retrying`); BullMQ only retries a job that threw, e.g. because its record could
 * not be written.
 */
export const jobOptions = (jobId: string, attempts: number): JobsOptions => ({
  jobId,
  attempts: Math.max(1, attempts),
  backoff: { type: 'fixed', delay: JOB_RETRY_DELAY_MS },
  removeOnComplete: true,
  removeOnFail: true,
});

export type QueuedJob = { name: string; data: DeliveryJobData | DeliveryBatchJobData; opts: JobsOptions };

/** The job of one delivery. */
export function deliveryJob(data: DeliveryJobData, maxAttempts: number): QueuedJob {
  return {
    name: DELIVER,
    data,
    opts: jobOptions(deliveryJobId(data.delivery, data.attempts), maxAttempts - data.attempts),
  };
}
