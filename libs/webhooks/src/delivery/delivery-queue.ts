import { JobsOptions, Queue } from 'bullmq';
import { DataSource } from 'typeorm';

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
}

export const deliveryJobId = (delivery: string, attempts: number) => `${delivery}.${attempts}`;

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
  };
}

/** Job data for deliveries still admitted, read from PostgreSQL (the sweeper uses this). */
export async function loadDeliveryJobs(dataSource: DataSource, uuids: string[]): Promise<DeliveryJobData[]> {
  if (!uuids.length) return [];
  const rows: DeliveryRow[] = await dataSource.query(
    `SELECT d.uuid, d.webhook_endpoint_uuid, d.company_uuid, d.attempts, e.event_id, e.name, e.payload::text AS body,
            (extract(epoch FROM ep.updated_at) * 1000)::bigint AS version
     FROM webhook_deliveries d
     JOIN webhook_events e ON e.event_id = d.event_id
     JOIN webhook_endpoints ep ON ep.uuid = d.webhook_endpoint_uuid
     WHERE d.uuid = ANY($1::uuid[]) AND d.status = 'pending' AND d.admitted_at IS NOT NULL`,
    [uuids],
  );
  return rows.map(deliveryJobData);
}

/** Enqueues the given admitted deliveries; a delivery whose job still exists is left as it is. */
export async function enqueueDeliveries(
  dataSource: DataSource,
  queue: Queue,
  uuids: string[],
  maxAttempts: number,
): Promise<number> {
  const jobs = await loadDeliveryJobs(dataSource, uuids);
  if (jobs.length) await queue.addBulk(jobs.map((job) => deliveryJob(job, maxAttempts)));
  return jobs.length;
}
