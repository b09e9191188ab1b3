import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One search index per table over its searchable columns (written by migration:generate from the
 * declarations; see SEARCH_GRAM in list-indexes.ts) in place of a trigram index per column.
 */
export class SearchIndexes1700000000105 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX IF EXISTS "webhook_endpoints_url_trgm_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "webhook_endpoints_description_trgm_idx"');
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "webhook_endpoints_url_description_search_idx" ON "webhook_endpoints" USING gin (wharf_search_grams("url", "description"))',
    );
    await queryRunner.query('DROP INDEX IF EXISTS "webhook_request_logs_event_trgm_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "webhook_request_logs_event_id_trgm_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "webhook_request_logs_url_trgm_idx"');
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "webhook_request_logs_event_event_id_url_search_idx" ON "webhook_request_logs" USING gin (wharf_search_grams("event", "event_id", "url"))',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX IF EXISTS "webhook_request_logs_event_event_id_url_search_idx"');
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "webhook_request_logs_event_trgm_idx" ON "webhook_request_logs" USING gin ("event" gin_trgm_ops)',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "webhook_request_logs_event_id_trgm_idx" ON "webhook_request_logs" USING gin ("event_id" gin_trgm_ops)',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "webhook_request_logs_url_trgm_idx" ON "webhook_request_logs" USING gin ("url" gin_trgm_ops)',
    );
    await queryRunner.query('DROP INDEX IF EXISTS "webhook_endpoints_url_description_search_idx"');
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "webhook_endpoints_url_trgm_idx" ON "webhook_endpoints" USING gin ("url" gin_trgm_ops)',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "webhook_endpoints_description_trgm_idx" ON "webhook_endpoints" USING gin ("description" gin_trgm_ops)',
    );
  }
}
