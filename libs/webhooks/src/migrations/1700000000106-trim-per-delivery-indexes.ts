import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A delivery row is written three times (fanned out, admitted, finished) and none of those updates can be
 * HOT (they change the columns of the scheduling indexes' predicates), so each write adds an entry to every
 * index of webhook_deliveries; its request-log row adds one to every index of that table. Dropped here:
 *
 * - webhook_deliveries' serial `id` and its primary key: nothing reads it (deliveries are found by uuid, by
 *   event and endpoint, or through the scheduling indexes), so `uuid` becomes the primary key.
 * - webhook_deliveries' company index: every statement over deliveries names the endpoint too, and the
 *   company foreign key it served is gone (1700000000102).
 * - webhook_deliveries' endpoint index: the unique (event_id, webhook_endpoint_uuid) becomes
 *   (webhook_endpoint_uuid, event_id), which serves the look-ups by endpoint (and the endpoint's ON DELETE
 *   CASCADE) as well. Nothing looks deliveries up by event alone but the foreign key to webhook_events, which
 *   goes: its check locked the event row per delivery, and events are deleted only with their company, whose
 *   endpoints take the deliveries with them.
 * - The request log's (company_uuid, sent_at) index: the list index (company_uuid, sent_at, id) covers it.
 * - The request log's foreign key to its delivery and the index behind it: checking it locked the delivery
 *   row that the same statement had just updated (one more WAL record per attempt), and its ON DELETE SET
 *   NULL ran a statement per deleted delivery. A delivery goes only with its event or endpoint; with its
 *   endpoint the log rows go too, and a log row's delivery uuid is internal (hidden from the API), so one
 *   naming a deleted delivery harms nothing.
 */
export class TrimPerDeliveryIndexes1700000000106 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE "webhook_request_logs" DROP CONSTRAINT "webhook_request_logs_webhook_delivery_uuid_fkey"',
    );
    await queryRunner.query('DROP INDEX "webhook_request_logs_webhook_delivery_uuid_idx"');
    await queryRunner.query('DROP INDEX "webhook_request_logs_sent_at_idx"');
    await queryRunner.query('DROP INDEX "webhook_deliveries_company_uuid_idx"');
    await queryRunner.query(
      'ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_event_id_fkey"',
    );
    await queryRunner.query(
      'ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_endpoint_event_key" UNIQUE ("webhook_endpoint_uuid", "event_id")',
    );
    await queryRunner.query(
      'ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_event_id_webhook_endpoint_uuid_key"',
    );
    await queryRunner.query('DROP INDEX "webhook_deliveries_webhook_endpoint_uuid_idx"');
    await queryRunner.query('ALTER TABLE "webhook_deliveries" DROP COLUMN "id"');
    await queryRunner.query('ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_uuid_key"');
    await queryRunner.query('ALTER TABLE "webhook_deliveries" ADD PRIMARY KEY ("uuid")');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_pkey"');
    await queryRunner.query('ALTER TABLE "webhook_deliveries" ALTER COLUMN "uuid" DROP NOT NULL');
    await queryRunner.query(
      'ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_uuid_key" UNIQUE ("uuid")',
    );
    await queryRunner.query('ALTER TABLE "webhook_deliveries" ADD COLUMN "id" serial PRIMARY KEY');
    await queryRunner.query(
      'CREATE INDEX "webhook_deliveries_webhook_endpoint_uuid_idx" ON "webhook_deliveries" ("webhook_endpoint_uuid")',
    );
    await queryRunner.query(
      'ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_event_id_webhook_endpoint_uuid_key" UNIQUE ("event_id", "webhook_endpoint_uuid")',
    );
    await queryRunner.query(
      'ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_endpoint_event_key"',
    );
    await queryRunner.query(
      'DELETE FROM "webhook_deliveries" d WHERE NOT EXISTS (SELECT 1 FROM "webhook_events" e WHERE e."event_id" = d."event_id")',
    );
    await queryRunner.query(
      'ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "webhook_events" ("event_id") ON DELETE CASCADE',
    );
    await queryRunner.query(
      'CREATE INDEX "webhook_deliveries_company_uuid_idx" ON "webhook_deliveries" ("company_uuid")',
    );
    await queryRunner.query(
      'CREATE INDEX "webhook_request_logs_sent_at_idx" ON "webhook_request_logs" ("company_uuid", "sent_at")',
    );
    await queryRunner.query(
      'CREATE INDEX "webhook_request_logs_webhook_delivery_uuid_idx" ON "webhook_request_logs" ("webhook_delivery_uuid")',
    );
    await queryRunner.query(
      `UPDATE "webhook_request_logs" l SET "webhook_delivery_uuid" = NULL
       WHERE NOT EXISTS (SELECT 1 FROM "webhook_deliveries" d WHERE d."uuid" = l."webhook_delivery_uuid")`,
    );
    await queryRunner.query(
      'ALTER TABLE "webhook_request_logs" ADD CONSTRAINT "webhook_request_logs_webhook_delivery_uuid_fkey" FOREIGN KEY ("webhook_delivery_uuid") REFERENCES "webhook_deliveries" ("uuid") ON DELETE SET NULL',
    );
  }
}
