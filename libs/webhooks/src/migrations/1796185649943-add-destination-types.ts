import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Where an endpoint's deliveries go: `type` (http, what every endpoint was, or a broker's) and its `config`
 * as shown (credentials masked), the whole sealed with APP_KEY in `config_sealed`. The default fills the
 * type of existing rows without rewriting them; `type` is sortable, hence its list index.
 */
export class AddDestinationTypes1796185649943 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "webhook_endpoints" ADD COLUMN "type" varchar(255) NOT NULL DEFAULT 'http'`,
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "webhook_endpoints_type_sort_idx" ON "webhook_endpoints" USING btree ("company_uuid", "type", "id")',
    );
    await queryRunner.query(`ALTER TABLE "webhook_endpoints" ADD COLUMN "config" jsonb`);
    await queryRunner.query(`ALTER TABLE "webhook_endpoints" ADD COLUMN "config_sealed" text`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "webhook_endpoints" DROP COLUMN "config_sealed"');
    await queryRunner.query('ALTER TABLE "webhook_endpoints" DROP COLUMN "config"');
    await queryRunner.query('ALTER TABLE "webhook_endpoints" DROP COLUMN "type"');
  }
}
