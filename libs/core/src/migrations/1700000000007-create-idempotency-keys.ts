import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Idempotency keys of POST requests, with the answer each got (see idempotency.hook.ts). The primary key
 * scopes a key to its company; the expiry index is what the purge reads its batches from. No foreign key to
 * the company: its check would lock the company's row once more in every keyed write; companies:delete
 * empties the table of a deleted company's keys like any table without one, and they expire anyway.
 */
export class CreateIdempotencyKeys1700000000007 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE "idempotency_keys" (
      "company_uuid" uuid NOT NULL,
      "key" varchar(255) NOT NULL,
      "route" text NOT NULL,
      "body_hash" varchar(64) NOT NULL,
      "status" smallint,
      "headers" jsonb,
      "body" text,
      "created_at" timestamptz NOT NULL DEFAULT now(),
      "expires_at" timestamptz NOT NULL,
      PRIMARY KEY ("company_uuid", "key")
    )`);
    await queryRunner.query(
      'CREATE INDEX "idempotency_keys_expires_at_idx" ON "idempotency_keys" ("expires_at")',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE "idempotency_keys"');
  }
}
