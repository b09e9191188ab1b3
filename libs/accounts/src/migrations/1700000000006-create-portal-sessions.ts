import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Portal sessions: a company's console opened from a link the platform hands out. Only SHA-256 hashes are
 * stored: of the link's one-time token and of the cookie it is exchanged for. `api_keys.platform` marks the
 * keys that may open a portal for any company (every other key: its own company only).
 */
export class CreatePortalSessions1700000000006 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "api_keys" ADD COLUMN "platform" boolean NOT NULL DEFAULT false');
    await queryRunner.query(`CREATE TABLE "portal_sessions" (
      "id" serial PRIMARY KEY,
      "uuid" uuid NOT NULL UNIQUE DEFAULT gen_random_uuid(),
      "company_uuid" uuid NOT NULL REFERENCES "companies" ("uuid") ON DELETE CASCADE,
      "created_by_company_uuid" uuid NOT NULL,
      "token_hash" char(64) NOT NULL UNIQUE,
      "cookie_hash" char(64) UNIQUE,
      "read_only" boolean NOT NULL DEFAULT false,
      "features" jsonb NOT NULL DEFAULT '[]',
      "return_url" text,
      "expires_at" timestamptz NOT NULL,
      "exchanged_at" timestamptz,
      "revoked_at" timestamptz,
      "created_at" timestamptz NOT NULL DEFAULT now()
    )`);
    await queryRunner.query(
      'CREATE INDEX "portal_sessions_company_uuid_idx" ON "portal_sessions" ("company_uuid")',
    );
    await queryRunner.query(
      'CREATE INDEX "portal_sessions_created_by_company_uuid_idx" ON "portal_sessions" ("created_by_company_uuid")',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE "portal_sessions"');
    await queryRunner.query('ALTER TABLE "api_keys" DROP COLUMN "platform"');
  }
}
