import { AppConfig } from '@wharf/core';
import { DataSource } from 'typeorm';
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

/**
 * Writes the request-log row, the delivery's new state and the endpoint's health in one transaction.
 * Endpoint health: a success clears `failing_since`; a 410 disables at once; failing without a single
 * success for longer than the configured window disables automatically.
 */
export async function recordAttempt(
  dataSource: DataSource,
  config: AppConfig,
  record: AttemptRecord,
): Promise<Record<string, unknown>> {
  const { delivery, result } = record;
  return dataSource.transaction(async (manager) => {
    const [log] = await manager.query(
      `INSERT INTO webhook_request_logs (company_uuid, webhook_endpoint_uuid, webhook_delivery_uuid, event_id, event, attempt, test,
         url, request_headers, request_body, response_status, response_headers, response_body, duration_ms, error, status, sent_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10, $11, $12::jsonb, $13, $14, $15, $16, $17)
       RETURNING uuid, company_uuid, webhook_endpoint_uuid, event_id, event, attempt, test, url, request_headers, request_body,
         response_status, response_headers, response_body, duration_ms, error, status, sent_at, created_at, updated_at`,
      [
        delivery.company_uuid,
        delivery.endpoint_uuid,
        delivery.uuid,
        delivery.event_id,
        delivery.event,
        record.attempt,
        record.test ?? false,
        result.url,
        JSON.stringify(result.request_headers),
        result.request_body,
        result.response_status,
        result.response_headers ? JSON.stringify(result.response_headers) : null,
        result.response_body,
        result.duration_ms,
        result.error,
        result.status,
        result.sent_at,
      ],
    );
    if (record.test) return log;
    if (delivery.uuid) {
      await manager.query(
        `UPDATE webhook_deliveries SET attempts = $2, status = $3, last_attempt_at = now(),
           next_attempt_at = now() + make_interval(secs => $4), updated_at = now() WHERE uuid = $1`,
        [delivery.uuid, record.attempt, record.outcome, record.nextAttemptInMs / 1000],
      );
    }
    if (result.status === 'successful') {
      await manager.query(
        `UPDATE webhook_endpoints SET failing_since = NULL WHERE uuid = $1 AND failing_since IS NOT NULL`,
        [delivery.endpoint_uuid],
      );
    } else if (result.response_status === 410) {
      await manager.query(
        `UPDATE webhook_endpoints SET status = 'disabled', disabled_at = now(), updated_at = now(),
           disabled_reason = 'The endpoint answered 410 Gone.' WHERE uuid = $1`,
        [delivery.endpoint_uuid],
      );
    } else {
      await manager.query(
        `UPDATE webhook_endpoints SET failing_since = COALESCE(failing_since, now()),
           status = CASE WHEN failing_since < now() - make_interval(days => $2) THEN 'disabled' ELSE status END,
           disabled_at = CASE WHEN failing_since < now() - make_interval(days => $2) THEN now() ELSE disabled_at END,
           disabled_reason = CASE WHEN failing_since < now() - make_interval(days => $2)
             THEN 'Deliveries failed without a success for ' || $2 || ' days.' ELSE disabled_reason END
         WHERE uuid = $1`,
        [delivery.endpoint_uuid, config.webhooks.autoDisableAfterDays],
      );
    }
    return log;
  });
}
