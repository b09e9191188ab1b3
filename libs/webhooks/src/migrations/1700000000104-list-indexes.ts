import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The list indexes of webhook endpoints and request logs (written by migration:generate from their declarations; see
 * list-indexes.ts in @wharf/core): a B-tree (company_uuid, column, id) per sortable column, a trigram
 * GIN per searchable one.
 */
export class ListIndexes1700000000104 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "webhook_endpoints_uuid_sort_idx" ON "webhook_endpoints" USING btree ("company_uuid", "uuid", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "webhook_endpoints_created_at_sort_idx" ON "webhook_endpoints" USING btree ("company_uuid", "created_at", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "webhook_endpoints_updated_at_sort_idx" ON "webhook_endpoints" USING btree ("company_uuid", "updated_at", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "webhook_endpoints_status_sort_idx" ON "webhook_endpoints" USING btree ("company_uuid", "status", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "webhook_endpoints_api_version_sort_idx" ON "webhook_endpoints" USING btree ("company_uuid", "api_version", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "webhook_endpoints_verified_at_sort_idx" ON "webhook_endpoints" USING btree ("company_uuid", "verified_at", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "webhook_endpoints_disabled_at_sort_idx" ON "webhook_endpoints" USING btree ("company_uuid", "disabled_at", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "webhook_endpoints_max_in_flight_sort_idx" ON "webhook_endpoints" USING btree ("company_uuid", "max_in_flight", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "webhook_endpoints_rate_limit_per_second_sort_idx" ON "webhook_endpoints" USING btree ("company_uuid", "rate_limit_per_second", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "webhook_endpoints_ordering_sort_idx" ON "webhook_endpoints" USING btree ("company_uuid", "ordering", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "webhook_endpoints_throttled_sort_idx" ON "webhook_endpoints" USING btree ("company_uuid", "throttled", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "webhook_endpoints_url_trgm_idx" ON "webhook_endpoints" USING gin ("url" gin_trgm_ops)',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "webhook_endpoints_description_trgm_idx" ON "webhook_endpoints" USING gin ("description" gin_trgm_ops)',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "webhook_request_logs_created_at_sort_idx" ON "webhook_request_logs" USING btree ("company_uuid", "created_at", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "webhook_request_logs_sent_at_sort_idx" ON "webhook_request_logs" USING btree ("company_uuid", "sent_at", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "webhook_request_logs_event_sort_idx" ON "webhook_request_logs" USING btree ("company_uuid", "event", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "webhook_request_logs_status_sort_idx" ON "webhook_request_logs" USING btree ("company_uuid", "status", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "webhook_request_logs_response_status_sort_idx" ON "webhook_request_logs" USING btree ("company_uuid", "response_status", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "webhook_request_logs_event_trgm_idx" ON "webhook_request_logs" USING gin ("event" gin_trgm_ops)',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "webhook_request_logs_event_id_trgm_idx" ON "webhook_request_logs" USING gin ("event_id" gin_trgm_ops)',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "webhook_request_logs_url_trgm_idx" ON "webhook_request_logs" USING gin ("url" gin_trgm_ops)',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX IF EXISTS "webhook_request_logs_url_trgm_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "webhook_request_logs_event_id_trgm_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "webhook_request_logs_event_trgm_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "webhook_request_logs_response_status_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "webhook_request_logs_status_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "webhook_request_logs_event_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "webhook_request_logs_sent_at_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "webhook_request_logs_created_at_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "webhook_endpoints_description_trgm_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "webhook_endpoints_url_trgm_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "webhook_endpoints_throttled_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "webhook_endpoints_ordering_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "webhook_endpoints_rate_limit_per_second_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "webhook_endpoints_max_in_flight_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "webhook_endpoints_disabled_at_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "webhook_endpoints_verified_at_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "webhook_endpoints_api_version_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "webhook_endpoints_status_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "webhook_endpoints_updated_at_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "webhook_endpoints_created_at_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "webhook_endpoints_uuid_sort_idx"');
  }
}
