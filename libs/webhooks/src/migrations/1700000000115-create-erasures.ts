import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Erasure requests (POST /int/v1/erasures), which are also their audit: who asked (the API key), when, and
 * how many stored rows were redacted. At most one unfinished request per record of a company (a second
 * request while one is pending or running is that one). No key to the API key: the audit outlives it.
 */
export class CreateErasures1700000000115 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE "webhook_erasures" (
      "uuid" uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      "company_uuid" uuid NOT NULL REFERENCES "companies" ("uuid") ON DELETE CASCADE,
      "resource" varchar(128) NOT NULL,
      "record_uuid" uuid NOT NULL,
      "status" varchar(16) NOT NULL DEFAULT 'pending'
        CONSTRAINT "webhook_erasures_status_check" CHECK ("status" IN ('pending', 'running', 'done', 'failed')),
      "rows_redacted" integer NOT NULL DEFAULT 0,
      "requested_by_api_key_uuid" uuid,
      "error" text,
      "created_at" timestamptz NOT NULL DEFAULT now(),
      "started_at" timestamptz,
      "heartbeat_at" timestamptz,
      "finished_at" timestamptz
    )`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "webhook_erasures_unfinished_key" ON "webhook_erasures" ("company_uuid", "record_uuid")
       WHERE "status" IN ('pending', 'running')`,
    );
    await queryRunner.query(
      `CREATE INDEX "webhook_erasures_queue_idx" ON "webhook_erasures" ("created_at") WHERE "status" IN ('pending', 'running')`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE "webhook_erasures"');
  }
}
