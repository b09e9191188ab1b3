import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * pg_trgm (PostgreSQL's contrib package; a trusted extension, so the database owner may create it) for
 * the trigram indexes of searchable columns, and the list indexes of locations (written by
 * migration:generate from the declaration; see list-indexes.ts).
 */
export class ListIndexes1700000000002 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "locations_uuid_sort_idx" ON "locations" USING btree ("company_uuid", "uuid", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "locations_created_at_sort_idx" ON "locations" USING btree ("company_uuid", "created_at", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "locations_updated_at_sort_idx" ON "locations" USING btree ("company_uuid", "updated_at", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "locations_name_sort_idx" ON "locations" USING btree ("company_uuid", "name", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "locations_street_sort_idx" ON "locations" USING btree ("company_uuid", "street", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "locations_city_sort_idx" ON "locations" USING btree ("company_uuid", "city", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "locations_state_sort_idx" ON "locations" USING btree ("company_uuid", "state", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "locations_zip_sort_idx" ON "locations" USING btree ("company_uuid", "zip", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "locations_country_sort_idx" ON "locations" USING btree ("company_uuid", "country", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "locations_latitude_sort_idx" ON "locations" USING btree ("company_uuid", "latitude", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "locations_longitude_sort_idx" ON "locations" USING btree ("company_uuid", "longitude", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "locations_name_trgm_idx" ON "locations" USING gin ("name" gin_trgm_ops)',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "locations_city_trgm_idx" ON "locations" USING gin ("city" gin_trgm_ops)',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX IF EXISTS "locations_city_trgm_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "locations_name_trgm_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "locations_longitude_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "locations_latitude_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "locations_country_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "locations_zip_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "locations_state_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "locations_city_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "locations_street_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "locations_name_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "locations_updated_at_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "locations_created_at_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "locations_uuid_sort_idx"');
    // pg_trgm stays: other extensions' indexes may use it.
  }
}
