import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Permissions of API keys and portal sessions (generated; the backfill of read-only sessions and the
 * trigger added by hand). Existing keys and sessions keep what they could do: every permission (`["*"]`),
 * and a read-only session every permission that only reads (`["*:read", "*:reveal"]`). A change of a key's permissions drops it from every
 * api process's cache, like a revocation.
 */
export class AddPermissions1796185991606 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "api_keys" ADD COLUMN "permissions" jsonb NOT NULL DEFAULT '["*"]'`);
    await queryRunner.query(
      `ALTER TABLE "portal_sessions" ADD COLUMN "permissions" jsonb NOT NULL DEFAULT '["*"]'`,
    );
    await queryRunner.query(
      `UPDATE "portal_sessions" SET "permissions" = '["*:read", "*:reveal"]' WHERE "read_only"`,
    );
    await this.notifyOn(queryRunner, 'revoked_at, key_hash, company_uuid, platform, uuid, permissions');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await this.notifyOn(queryRunner, 'revoked_at, key_hash, company_uuid, platform, uuid');
    await queryRunner.query('ALTER TABLE "portal_sessions" DROP COLUMN "permissions"');
    await queryRunner.query('ALTER TABLE "api_keys" DROP COLUMN "permissions"');
  }

  private async notifyOn(queryRunner: QueryRunner, columns: string): Promise<void> {
    await queryRunner.query('DROP TRIGGER "api_keys_notify_change" ON "api_keys"');
    await queryRunner.query(`CREATE TRIGGER "api_keys_notify_change"
      AFTER UPDATE OF ${columns} OR DELETE ON "api_keys"
      FOR EACH ROW EXECUTE FUNCTION wharf_notify_api_key_change()`);
  }
}
