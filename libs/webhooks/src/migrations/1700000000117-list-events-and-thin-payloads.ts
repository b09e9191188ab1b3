import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The events API and thin payloads:
 * - a company's events newest first, read off (company_uuid, event_id) in each partition of webhook_events
 *   (an event id starts with its time, so this is the creation order);
 * - its events with a delivery that failed or is retrying, off a partial index of those deliveries only;
 * - `payload` of an endpoint: `full` (the record, as before) or `thin` (a reference to it).
 */
export class ListEventsAndThinPayloads1700000000117 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE INDEX "webhook_events_company_event_id_idx" ON "webhook_events" ("company_uuid", "event_id")',
    );
    await queryRunner.query(
      `CREATE INDEX "webhook_deliveries_unsuccessful_idx" ON "webhook_deliveries" ("company_uuid", "event_id")
       WHERE "status" IN ('retrying', 'failed')`,
    );
    await queryRunner.query(`ALTER TABLE "webhook_endpoints"
      ADD COLUMN "payload" varchar(8) NOT NULL DEFAULT 'full' CHECK ("payload" IN ('full', 'thin'))`);
    // The list index of the new column, as every sortable column of a resource has one (list-indexes.ts).
    await queryRunner.query(
      'CREATE INDEX "webhook_endpoints_payload_sort_idx" ON "webhook_endpoints" USING btree ("company_uuid", "payload", "id")',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX "webhook_endpoints_payload_sort_idx"');
    await queryRunner.query('ALTER TABLE "webhook_endpoints" DROP COLUMN "payload"');
    await queryRunner.query('DROP INDEX "webhook_deliveries_unsuccessful_idx"');
    await queryRunner.query('DROP INDEX "webhook_events_company_event_id_idx"');
  }
}
