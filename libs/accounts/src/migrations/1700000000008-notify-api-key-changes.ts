import { MigrationInterface, QueryRunner } from 'typeorm';

/** The channel every api process LISTENs on to drop its cached API keys (api-key-revocations.ts). */
export const API_KEYS_CHANNEL = 'wharf_api_keys';

/**
 * NOTIFY of each API key revoked, deleted (its company's deletion included) or changed in what a cached key
 * stands for (hash, company, platform), with the key's uuid: whichever process or command changes it, at
 * commit. `last_used_at` updates send nothing.
 */
export class NotifyApiKeyChanges1700000000008 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE FUNCTION wharf_notify_api_key_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('${API_KEYS_CHANNEL}', OLD.uuid::text);
        RETURN NULL;
      END $$`);
    await queryRunner.query(`CREATE TRIGGER "api_keys_notify_change"
      AFTER UPDATE OF revoked_at, key_hash, company_uuid, platform, uuid OR DELETE ON "api_keys"
      FOR EACH ROW EXECUTE FUNCTION wharf_notify_api_key_change()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TRIGGER "api_keys_notify_change" ON "api_keys"');
    await queryRunner.query('DROP FUNCTION wharf_notify_api_key_change()');
  }
}
