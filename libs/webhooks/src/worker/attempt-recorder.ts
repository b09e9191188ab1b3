import { AppConfig } from '@wharf/core';
import { DataSource, EntityManager } from 'typeorm';
import { Attempt } from '../delivery/webhook-sender';

export interface AttemptRecord {
  delivery: {
    uuid: string | null;
    company_uuid: string;
    endpoint_uuid: string;
    event_id: string;
    event: string;
  };
  attempt: number;
  result: Attempt;
  test?: boolean;
  /** The delivery's state after this attempt (ignored for test sends, which have no delivery). */
  outcome: 'successful' | 'failed' | 'pending';
  nextAttemptInMs: number;
}

const LOG_COLUMNS = `uuid, company_uuid, webhook_endpoint_uuid, event_id, event, attempt, test, url, request_headers, request_body,
  response_status, response_headers, response_body, duration_ms, error, status, sent_at, created_at, updated_at`;

async function insertLogs(
  manager: EntityManager,
  records: AttemptRecord[],
): Promise<Record<string, unknown>[]> {
  const column = <T>(pick: (record: AttemptRecord) => T) => records.map(pick);
  return manager.query(
    `INSERT INTO webhook_request_logs (company_uuid, webhook_endpoint_uuid, webhook_delivery_uuid, event_id, event, attempt, test,
       url, request_headers, request_body, response_status, response_headers, response_body, duration_ms, error, status, sent_at)
     SELECT c, ep, d, ev, en, a, t, u, rh::jsonb, rb, rs, rsh::jsonb, rsb, dm, er, st, sa
     FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::text[], $6::int[], $7::bool[], $8::text[], $9::text[],
       $10::text[], $11::int[], $12::text[], $13::text[], $14::int[], $15::text[], $16::text[], $17::timestamptz[])
       AS x(c, ep, d, ev, en, a, t, u, rh, rb, rs, rsh, rsb, dm, er, st, sa)
     RETURNING ${LOG_COLUMNS}`,
    [
      column((r) => r.delivery.company_uuid),
      column((r) => r.delivery.endpoint_uuid),
      column((r) => r.delivery.uuid),
      column((r) => r.delivery.event_id),
      column((r) => r.delivery.event),
      column((r) => r.attempt),
      column((r) => r.test ?? false),
      column((r) => r.result.url),
      column((r) => JSON.stringify(r.result.request_headers)),
      column((r) => r.result.request_body),
      column((r) => r.result.response_status),
      column((r) => (r.result.response_headers ? JSON.stringify(r.result.response_headers) : null)),
      column((r) => r.result.response_body),
      column((r) => r.result.duration_ms),
      column((r) => r.result.error),
      column((r) => r.result.status),
      column((r) => r.result.sent_at),
    ],
  );
}

/**
 * Writes request-log rows, the deliveries' new states and the endpoints' health for a batch of attempts in
 * one transaction. Endpoint health: a success clears `failing_since`; a 410 disables at once; failing
 * without a single success for longer than the configured window disables automatically.
 */
export async function recordAttempts(dataSource: DataSource, config: AppConfig, records: AttemptRecord[]) {
  return dataSource.transaction(async (manager) => {
    const logs = await insertLogs(manager, records);
    const deliveries = records.filter((r) => !r.test && r.delivery.uuid);
    if (deliveries.length) {
      await manager.query(
        `UPDATE webhook_deliveries d SET attempts = v.a, status = v.s, last_attempt_at = now(), updated_at = now(),
           next_attempt_at = now() + v.ms * interval '1 millisecond'
         FROM unnest($1::uuid[], $2::int[], $3::text[], $4::float8[]) AS v(u, a, s, ms) WHERE d.uuid = v.u`,
        [
          deliveries.map((r) => r.delivery.uuid),
          deliveries.map((r) => r.attempt),
          deliveries.map((r) => r.outcome),
          deliveries.map((r) => r.nextAttemptInMs),
        ],
      );
    }
    const gone = new Set<string>();
    const succeeded = new Set<string>();
    const failed = new Set<string>();
    for (const r of records) {
      if (r.test) continue;
      const endpoint = r.delivery.endpoint_uuid;
      if (r.result.response_status === 410) gone.add(endpoint);
      else if (r.result.status === 'successful') succeeded.add(endpoint);
      else failed.add(endpoint);
    }
    for (const endpoint of succeeded) failed.delete(endpoint);
    if (succeeded.size) {
      await manager.query(
        `UPDATE webhook_endpoints SET failing_since = NULL WHERE uuid = ANY($1::uuid[]) AND failing_since IS NOT NULL`,
        [[...succeeded]],
      );
    }
    if (failed.size) {
      await manager.query(
        `UPDATE webhook_endpoints SET failing_since = COALESCE(failing_since, now()),
           status = CASE WHEN failing_since < now() - make_interval(days => $2) THEN 'disabled' ELSE status END,
           disabled_at = CASE WHEN failing_since < now() - make_interval(days => $2) THEN now() ELSE disabled_at END,
           updated_at = CASE WHEN failing_since < now() - make_interval(days => $2) THEN now() ELSE updated_at END,
           disabled_reason = CASE WHEN failing_since < now() - make_interval(days => $2)
             THEN 'Deliveries failed without a success for ' || $2 || ' days.' ELSE disabled_reason END
         WHERE uuid = ANY($1::uuid[])`,
        [[...failed], config.webhooks.autoDisableAfterDays],
      );
    }
    if (gone.size) {
      await manager.query(
        `UPDATE webhook_endpoints SET status = 'disabled', disabled_at = now(), updated_at = now(),
           disabled_reason = 'The endpoint answered 410 Gone.' WHERE uuid = ANY($1::uuid[])`,
        [[...gone]],
      );
    }
    return logs;
  });
}

/** One attempt (e.g. a test send); returns its request-log row. */
export async function recordAttempt(dataSource: DataSource, config: AppConfig, record: AttemptRecord) {
  return (await recordAttempts(dataSource, config, [record]))[0];
}
