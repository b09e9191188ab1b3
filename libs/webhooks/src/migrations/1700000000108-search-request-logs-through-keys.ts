import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The request log is searched through its keys (WebhookRequestLog's `searchKeys`): one row per distinct
 * company, endpoint, event and url, holding the search index, instead of a search-index entry for every
 * attempt: those grams and GIN entries were a large share of what recording an attempt cost PostgreSQL,
 * for values that repeat on almost every row. A statement trigger adds the keys
 * of every insert, whoever writes the log. The B-tree on (endpoint, event) replaces the one on the endpoint
 * alone (the foreign key's lookups use its first column) and finds a key's rows.
 */
export class SearchRequestLogsThroughKeys1700000000108 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE "webhook_request_log_search_keys" (
      "company_uuid" uuid NOT NULL,
      "webhook_endpoint_uuid" uuid NOT NULL REFERENCES "webhook_endpoints" ("uuid") ON DELETE CASCADE,
      "event" character varying NOT NULL,
      "url" text NOT NULL
    )`);
    // md5: a url may be longer than a B-tree entry can hold.
    await queryRunner.query(
      'CREATE UNIQUE INDEX "webhook_request_log_search_keys_key" ON "webhook_request_log_search_keys" ("webhook_endpoint_uuid", "event", md5("url"))',
    );
    await queryRunner.query(
      'CREATE INDEX "webhook_request_log_search_keys_event_url_search_idx" ON "webhook_request_log_search_keys" USING gin (wharf_search_grams("event", "url"))',
    );
    await queryRunner.query(`CREATE FUNCTION wharf_webhook_request_log_search_keys() RETURNS trigger
      LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO webhook_request_log_search_keys (company_uuid, webhook_endpoint_uuid, event, url)
        SELECT DISTINCT company_uuid, webhook_endpoint_uuid, event, url FROM inserted
        -- One order for every writer: two inserting the same new keys never wait for each other in a cycle.
        ORDER BY webhook_endpoint_uuid, event, url
        ON CONFLICT (webhook_endpoint_uuid, event, md5(url)) DO NOTHING;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`CREATE TRIGGER "webhook_request_logs_search_keys" AFTER INSERT ON "webhook_request_logs"
      REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION wharf_webhook_request_log_search_keys()`);
    await queryRunner.query(`INSERT INTO "webhook_request_log_search_keys" (company_uuid, webhook_endpoint_uuid, event, url)
      SELECT DISTINCT company_uuid, webhook_endpoint_uuid, event, url FROM "webhook_request_logs"`);
    await queryRunner.query(
      'CREATE INDEX "webhook_request_logs_webhook_endpoint__ee2d66a5_search_keys_idx" ON "webhook_request_logs" ("webhook_endpoint_uuid", "event")',
    );
    await queryRunner.query('DROP INDEX IF EXISTS "webhook_request_logs_webhook_endpoint_uuid_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "webhook_request_logs_event_url_search_idx"');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "webhook_request_logs_event_url_search_idx" ON "webhook_request_logs" USING gin (wharf_search_grams("event", "url"))',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "webhook_request_logs_webhook_endpoint_uuid_idx" ON "webhook_request_logs" ("webhook_endpoint_uuid")',
    );
    await queryRunner.query(
      'DROP INDEX IF EXISTS "webhook_request_logs_webhook_endpoint__ee2d66a5_search_keys_idx"',
    );
    await queryRunner.query(
      'DROP TRIGGER IF EXISTS "webhook_request_logs_search_keys" ON "webhook_request_logs"',
    );
    await queryRunner.query('DROP FUNCTION IF EXISTS wharf_webhook_request_log_search_keys()');
    await queryRunner.query('DROP TABLE IF EXISTS "webhook_request_log_search_keys"');
  }
}
