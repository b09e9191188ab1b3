import { DeliveryRow } from '../store/job-rows.sql';
import {
  DELIVER_BATCH,
  DeliveryBatchJobData,
  DeliveryJobData,
  QueuedJob,
  deliveryBatchJobId,
  deliveryJob,
  jobOptions,
} from './delivery-job';

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
    ...traceOf(row),
  };
}

/** The job's `trace`, only when the event has one: an untraced job's data stays as it was. */
const traceOf = (row: DeliveryRow) => (row.trace_context === null ? {} : { trace: row.trace_context });

/**
 * The jobs of admitted deliveries: first attempts at an endpoint without a rate limit admitted together
 * share one job (one BullMQ add, fetch and completion for all of them); a retry, or a send under a rate
 * limit, has a job of its own.
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
        ...traceOf(row),
      })),
    };
    jobs.push({ name: DELIVER_BATCH, data, opts: jobOptions(jobId, maxAttempts) });
  }
  return jobs;
}
