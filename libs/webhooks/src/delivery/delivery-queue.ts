import { JobsOptions, Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import { jobRows } from '../worker/admission-sql';

export const DELIVERY_QUEUE = 'webhook-deliveries';

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
}

export const deliveryJobId = (delivery: string, attempts: number) => `${delivery}.${attempts}`;

/** One delivery of a batch job: the endpoint and company are the job's. */
export type BatchedDelivery = Pick<DeliveryJobData, 'delivery' | 'eventId' | 'event' | 'body' | 'attempts'>;

/** First attempts at one endpoint admitted by one statement, sent by one job. */
export interface DeliveryBatchJobData {
  endpoint: string;
  endpointVersion: number;
  company: string;
  cap: number;
  deliveries: BatchedDelivery[];
}

export const DELIVER_BATCH = 'deliver-batch';

/**
 * A batch job's id: its endpoint and its admission number (see admissionNumber), which every delivery of
 * the batch keeps while it is admitted, so the sweeper can name the job from PostgreSQL alone.
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
 * One job per admission of a delivery, its id the delivery uuid and the attempts made before it: enqueueing
 * the same admission again (the sweeper) is a no-op, while a retry, admitted after the previous attempt's
 * job finished, can never be mistaken for it.
 */
export function deliveryJob(
  data: DeliveryJobData,
  maxAttempts: number,
): { name: string; data: DeliveryJobData; opts: JobsOptions } {
  return {
    name: 'deliver',
    data,
    opts: {
      jobId: deliveryJobId(data.delivery, data.attempts),
      // Retries after a failed attempt are scheduled in PostgreSQL (see DeliveryAdmitter); BullMQ only
      // retries a job that threw, e.g. because its attempt could not be recorded.
      attempts: Math.max(1, maxAttempts - data.attempts),
      backoff: { type: 'fixed', delay: 1000 },
      removeOnComplete: true,
      removeOnFail: true,
    },
  };
}

/** A delivery as PostgreSQL gives it (admission and loadDeliveryJobs select these columns). */
export interface DeliveryRow {
  /** Its admission number (a bigint, so a string): names its batch job. */
  admission: string;
  /** The endpoint has a rate limit: each send needs its own slot, so each delivery gets its own job. */
  limited: boolean;
  /** Its endpoint's sends at once (max_in_flight, 1 while throttled). */
  cap: number;
  uuid: string;
  webhook_endpoint_uuid: string;
  company_uuid: string;
  attempts: number;
  event_id: string;
  name: string;
  body: string;
  /** The endpoint's updated_at in ms (a bigint, so pg gives a string). */
  version: string;
}

export function deliveryJobData(row: DeliveryRow): DeliveryJobData {
  return {
    delivery: row.uuid,
    endpoint: row.webhook_endpoint_uuid,
    endpointVersion: Number(row.version),
    company: row.company_uuid,
    eventId: row.event_id,
    event: row.name,
    body: row.body,
    attempts: row.attempts,
    cap: row.cap,
  };
}

type QueuedJob = { name: string; data: DeliveryJobData | DeliveryBatchJobData; opts: JobsOptions };

/**
 * The jobs of admitted deliveries: first attempts at an endpoint without a rate limit admitted together
 * share one job (at most its max_in_flight of them); a retry, or a send under a rate limit, has a job of
 * its own. Sharing a job cut BullMQ's and Redis's share of the cost per delivery (bench:webhooks: one
 * add, one moveToActive and one moveToFinished per batch instead of per delivery).
 */
export function deliveryJobs(rows: DeliveryRow[], maxAttempts: number): QueuedJob[] {
  const jobs: QueuedJob[] = [];
  const batches = new Map<string, DeliveryRow[]>();
  for (const row of rows) {
    if (row.attempts > 0 || row.limited) {
      jobs.push(deliveryJob(deliveryJobData(row), maxAttempts));
      continue;
    }
    const id = deliveryBatchJobId(row.webhook_endpoint_uuid, row.admission);
    const batch = batches.get(id);
    if (batch) batch.push(row);
    else batches.set(id, [row]);
  }
  for (const [jobId, batch] of batches) {
    if (batch.length === 1) {
      jobs.push(deliveryJob(deliveryJobData(batch[0]), maxAttempts));
      continue;
    }
    const data: DeliveryBatchJobData = {
      endpoint: batch[0].webhook_endpoint_uuid,
      endpointVersion: Math.max(...batch.map((row) => Number(row.version))),
      company: batch[0].company_uuid,
      cap: Math.min(...batch.map((row) => row.cap)),
      deliveries: batch.map((row) => ({
        delivery: row.uuid,
        eventId: row.event_id,
        event: row.name,
        body: row.body,
        attempts: row.attempts,
      })),
    };
    jobs.push({
      name: DELIVER_BATCH,
      data,
      opts: {
        jobId,
        attempts: maxAttempts,
        backoff: { type: 'fixed', delay: 1000 },
        removeOnComplete: true,
        removeOnFail: true,
      },
    });
  }
  return jobs;
}

/** Rows for deliveries still admitted, read from PostgreSQL (the sweeper uses this). */
export async function loadDeliveryRows(dataSource: DataSource, uuids: string[]): Promise<DeliveryRow[]> {
  if (!uuids.length) return [];
  return dataSource.query(
    `${jobRows('webhook_deliveries')}
     WHERE a.uuid = ANY($1::uuid[]) AND a.status = 'pending' AND a.admitted_at IS NOT NULL`,
    [uuids],
  );
}

/**
 * Enqueues the given admitted deliveries; a job that still exists is left as it is (the sweeper passes
 * only deliveries whose job, batch or single, is gone, so a batch is rebuilt under its own id).
 */
export async function enqueueDeliveries(
  dataSource: DataSource,
  queue: Queue,
  uuids: string[],
  maxAttempts: number,
): Promise<number> {
  const rows = await loadDeliveryRows(dataSource, uuids);
  if (rows.length) await queue.addBulk(deliveryJobs(rows, maxAttempts));
  return rows.length;
}
