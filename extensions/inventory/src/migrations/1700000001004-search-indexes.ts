import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One search index per table over its searchable columns (written by migration:generate from the
 * declarations; see SEARCH_GRAM in list-indexes.ts) in place of a trigram index per column.
 */
export class SearchIndexes1700000001004 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX IF EXISTS "warehouse_sections_name_trgm_idx"');
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "warehouse_sections_name_search_idx" ON "warehouse_sections" USING gin (wharf_search_grams("name"))',
    );
    await queryRunner.query('DROP INDEX IF EXISTS "warehouses_name_trgm_idx"');
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "warehouses_name_search_idx" ON "warehouses" USING gin (wharf_search_grams("name"))',
    );
    await queryRunner.query('DROP INDEX IF EXISTS "warehouse_docks_dock_number_trgm_idx"');
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "warehouse_docks_dock_number_search_idx" ON "warehouse_docks" USING gin (wharf_search_grams("dock_number"))',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX IF EXISTS "warehouse_docks_dock_number_search_idx"');
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "warehouse_docks_dock_number_trgm_idx" ON "warehouse_docks" USING gin ("dock_number" gin_trgm_ops)',
    );
    await queryRunner.query('DROP INDEX IF EXISTS "warehouses_name_search_idx"');
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "warehouses_name_trgm_idx" ON "warehouses" USING gin ("name" gin_trgm_ops)',
    );
    await queryRunner.query('DROP INDEX IF EXISTS "warehouse_sections_name_search_idx"');
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "warehouse_sections_name_trgm_idx" ON "warehouse_sections" USING gin ("name" gin_trgm_ops)',
    );
  }
}
