import { MigrationInterface, QueryRunner } from 'typeorm';

/** The request-log filters by event id (resend, "what happened to evt_…") stay index lookups. */
export class IndexWebhookRequestLogEvents1700000000101 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE INDEX "webhook_request_logs_event_id_idx" ON "webhook_request_logs" ("company_uuid", "event_id")',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX "webhook_request_logs_event_id_idx"');
  }
}
