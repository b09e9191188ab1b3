import { MigrationInterface, QueryRunner } from 'typeorm';

/** The channel the api's live activity stream LISTENs on (activity/activity-hub.ts). */
export const ACTIVITY_CHANNEL = 'wharf_activity';

/**
 * NOTIFY of what the console shows live: each statement that inserts request-log rows (the worker's record
 * of a batch, the api's test sends) sends one notification for the whole batch — `l|<first sent_at, epoch
 * ms>|<company uuids, or * past 100>` — read from the transition table the search-keys trigger already
 * makes; an endpoint's state change (disabled, throttled, verified) sends `e|<company>|<its state as JSON>`.
 * Delivered at commit, so the rows are visible to whoever reads them on receipt.
 */
export class NotifyActivity1700000000116 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE FUNCTION wharf_notify_request_logs() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE n integer; since bigint; companies text;
      BEGIN
        SELECT count(DISTINCT company_uuid), floor(extract(epoch FROM min(sent_at)) * 1000)::bigint,
          string_agg(DISTINCT company_uuid::text, ',')
        INTO n, since, companies FROM inserted;
        IF n > 0 THEN
          PERFORM pg_notify('${ACTIVITY_CHANNEL}', 'l|' || since || '|' || CASE WHEN n > 100 THEN '*' ELSE companies END);
        END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`CREATE TRIGGER "webhook_request_logs_notify" AFTER INSERT ON "webhook_request_logs"
      REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION wharf_notify_request_logs()`);
    await queryRunner.query(`CREATE FUNCTION wharf_notify_endpoint_state() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('${ACTIVITY_CHANNEL}', 'e|' || NEW.company_uuid || '|' || json_build_object(
          'uuid', NEW.uuid, 'status', NEW.status, 'disabled_at', NEW.disabled_at,
          'disabled_reason', left(NEW.disabled_reason, 1000), 'throttled', NEW.throttled,
          'throttled_reason', left(NEW.throttled_reason, 1000), 'verified_at', NEW.verified_at)::text);
        RETURN NULL;
      END $$`);
    await queryRunner.query(`CREATE TRIGGER "webhook_endpoints_notify_state" AFTER UPDATE ON "webhook_endpoints"
      FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.throttled IS DISTINCT FROM NEW.throttled
        OR OLD.verified_at IS DISTINCT FROM NEW.verified_at OR OLD.disabled_reason IS DISTINCT FROM NEW.disabled_reason
        OR OLD.throttled_reason IS DISTINCT FROM NEW.throttled_reason)
      EXECUTE FUNCTION wharf_notify_endpoint_state()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TRIGGER "webhook_endpoints_notify_state" ON "webhook_endpoints"');
    await queryRunner.query('DROP FUNCTION wharf_notify_endpoint_state()');
    await queryRunner.query('DROP TRIGGER "webhook_request_logs_notify" ON "webhook_request_logs"');
    await queryRunner.query('DROP FUNCTION wharf_notify_request_logs()');
  }
}
