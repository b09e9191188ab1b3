import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every delivery inserts a delivery row and a request-log row per attempt, so each check on them is paid
 * thousands of times a second. Their company foreign keys are redundant: both rows already reference an
 * endpoint (and a delivery an event) that cascades from the company. The request log's company-only index
 * is covered by its (company_uuid, sent_at) and (company_uuid, event_id) indexes.
 */
export class LightenDeliveryWrites1700000000102 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_company_uuid_fkey"',
    );
    await queryRunner.query(
      'ALTER TABLE "webhook_request_logs" DROP CONSTRAINT "webhook_request_logs_company_uuid_fkey"',
    );
    await queryRunner.query('DROP INDEX "webhook_request_logs_company_uuid_idx"');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE INDEX "webhook_request_logs_company_uuid_idx" ON "webhook_request_logs" ("company_uuid")',
    );
    for (const table of ['webhook_request_logs', 'webhook_deliveries']) {
      await queryRunner.query(
        `ALTER TABLE "${table}" ADD CONSTRAINT "${table}_company_uuid_fkey" FOREIGN KEY ("company_uuid") REFERENCES "companies" ("uuid") ON DELETE CASCADE`,
      );
    }
  }
}
