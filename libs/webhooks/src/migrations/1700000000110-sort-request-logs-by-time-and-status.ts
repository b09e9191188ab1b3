import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Request logs are no longer sortable by `event` or `response_status` (filtering by them still works): every
 * delivery attempt paid a B-tree entry in each of their sort indexes, for an order a log view does not use
 * (the console, like svix's attempt log, lists newest first and filters), on the hottest insert there is.
 * The status index stays: it serves the console's `status=failed` filter.
 */
export class SortRequestLogsByTimeAndStatus1700000000110 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX IF EXISTS "webhook_request_logs_event_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "webhook_request_logs_response_status_sort_idx"');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "webhook_request_logs_event_sort_idx" ON "webhook_request_logs" USING btree ("company_uuid", "event", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "webhook_request_logs_response_status_sort_idx" ON "webhook_request_logs" USING btree ("company_uuid", "response_status", "id")',
    );
  }
}
