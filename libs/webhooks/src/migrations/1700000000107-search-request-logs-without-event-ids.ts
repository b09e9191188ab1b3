import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The request log's search index leaves out event_id (see WebhookRequestLog's `searchable`): a random id's
 * grams are shared with no other row, so they multiplied the index's writes on every delivery attempt.
 */
export class SearchRequestLogsWithoutEventIds1700000000107 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX IF EXISTS "webhook_request_logs_event_event_id_url_search_idx"');
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "webhook_request_logs_event_url_search_idx" ON "webhook_request_logs" USING gin (wharf_search_grams("event", "url"))',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX IF EXISTS "webhook_request_logs_event_url_search_idx"');
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "webhook_request_logs_event_event_id_url_search_idx" ON "webhook_request_logs" USING gin (wharf_search_grams("event", "event_id", "url"))',
    );
  }
}
