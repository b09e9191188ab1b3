import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The list indexes of warehouses, their sections and docks (written by migration:generate from their declarations; see
 * list-indexes.ts in @wharf/core): a B-tree (company_uuid, column, id) per sortable column, a trigram
 * GIN per searchable one.
 */
export class ListIndexes1700000001003 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "warehouse_sections_uuid_sort_idx" ON "warehouse_sections" USING btree ("company_uuid", "uuid", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "warehouse_sections_created_at_sort_idx" ON "warehouse_sections" USING btree ("company_uuid", "created_at", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "warehouse_sections_updated_at_sort_idx" ON "warehouse_sections" USING btree ("company_uuid", "updated_at", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "warehouse_sections_warehouse_uuid_sort_idx" ON "warehouse_sections" USING btree ("company_uuid", "warehouse_uuid", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "warehouse_sections_name_sort_idx" ON "warehouse_sections" USING btree ("company_uuid", "name", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "warehouse_sections_name_trgm_idx" ON "warehouse_sections" USING gin ("name" gin_trgm_ops)',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "warehouses_uuid_sort_idx" ON "warehouses" USING btree ("company_uuid", "uuid", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "warehouses_created_at_sort_idx" ON "warehouses" USING btree ("company_uuid", "created_at", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "warehouses_updated_at_sort_idx" ON "warehouses" USING btree ("company_uuid", "updated_at", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "warehouses_location_uuid_sort_idx" ON "warehouses" USING btree ("company_uuid", "location_uuid", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "warehouses_name_sort_idx" ON "warehouses" USING btree ("company_uuid", "name", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "warehouses_address_sort_idx" ON "warehouses" USING btree ("company_uuid", "address", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "warehouses_city_sort_idx" ON "warehouses" USING btree ("company_uuid", "city", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "warehouses_state_sort_idx" ON "warehouses" USING btree ("company_uuid", "state", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "warehouses_zip_sort_idx" ON "warehouses" USING btree ("company_uuid", "zip", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "warehouses_capacity_sort_idx" ON "warehouses" USING btree ("company_uuid", "capacity", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "warehouses_is_primary_sort_idx" ON "warehouses" USING btree ("company_uuid", "is_primary", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "warehouses_name_trgm_idx" ON "warehouses" USING gin ("name" gin_trgm_ops)',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "warehouse_docks_uuid_sort_idx" ON "warehouse_docks" USING btree ("company_uuid", "uuid", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "warehouse_docks_created_at_sort_idx" ON "warehouse_docks" USING btree ("company_uuid", "created_at", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "warehouse_docks_updated_at_sort_idx" ON "warehouse_docks" USING btree ("company_uuid", "updated_at", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "warehouse_docks_warehouse_uuid_sort_idx" ON "warehouse_docks" USING btree ("company_uuid", "warehouse_uuid", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "warehouse_docks_dock_number_sort_idx" ON "warehouse_docks" USING btree ("company_uuid", "dock_number", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "warehouse_docks_direction_sort_idx" ON "warehouse_docks" USING btree ("company_uuid", "direction", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "warehouse_docks_capacity_sort_idx" ON "warehouse_docks" USING btree ("company_uuid", "capacity", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "warehouse_docks_status_sort_idx" ON "warehouse_docks" USING btree ("company_uuid", "status", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "warehouse_docks_dock_number_trgm_idx" ON "warehouse_docks" USING gin ("dock_number" gin_trgm_ops)',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX IF EXISTS "warehouse_docks_dock_number_trgm_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "warehouse_docks_status_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "warehouse_docks_capacity_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "warehouse_docks_direction_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "warehouse_docks_dock_number_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "warehouse_docks_warehouse_uuid_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "warehouse_docks_updated_at_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "warehouse_docks_created_at_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "warehouse_docks_uuid_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "warehouses_name_trgm_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "warehouses_is_primary_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "warehouses_capacity_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "warehouses_zip_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "warehouses_state_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "warehouses_city_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "warehouses_address_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "warehouses_name_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "warehouses_location_uuid_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "warehouses_updated_at_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "warehouses_created_at_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "warehouses_uuid_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "warehouse_sections_name_trgm_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "warehouse_sections_name_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "warehouse_sections_warehouse_uuid_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "warehouse_sections_updated_at_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "warehouse_sections_created_at_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "warehouse_sections_uuid_sort_idx"');
  }
}
