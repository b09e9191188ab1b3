import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One search index per table over its searchable columns (written by migration:generate from the
 * declarations; see SEARCH_GRAM in list-indexes.ts) in place of a trigram index per column.
 */
export class SearchIndexes1700000002004 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX IF EXISTS "vehicles_plate_number_trgm_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "vehicles_make_trgm_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "vehicles_model_trgm_idx"');
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "vehicles_plate_number_make_model_search_idx" ON "vehicles" USING gin (wharf_search_grams("plate_number", "make", "model"))',
    );
    await queryRunner.query('DROP INDEX IF EXISTS "orders_reference_trgm_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "orders_notes_trgm_idx"');
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "orders_reference_notes_search_idx" ON "orders" USING gin (wharf_search_grams("reference", "notes"))',
    );
    await queryRunner.query('DROP INDEX IF EXISTS "drivers_name_trgm_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "drivers_phone_trgm_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "drivers_email_trgm_idx"');
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "drivers_name_phone_email_search_idx" ON "drivers" USING gin (wharf_search_grams("name", "phone", "email"))',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX IF EXISTS "drivers_name_phone_email_search_idx"');
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "drivers_name_trgm_idx" ON "drivers" USING gin ("name" gin_trgm_ops)',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "drivers_phone_trgm_idx" ON "drivers" USING gin ("phone" gin_trgm_ops)',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "drivers_email_trgm_idx" ON "drivers" USING gin ("email" gin_trgm_ops)',
    );
    await queryRunner.query('DROP INDEX IF EXISTS "orders_reference_notes_search_idx"');
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "orders_reference_trgm_idx" ON "orders" USING gin ("reference" gin_trgm_ops)',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "orders_notes_trgm_idx" ON "orders" USING gin ("notes" gin_trgm_ops)',
    );
    await queryRunner.query('DROP INDEX IF EXISTS "vehicles_plate_number_make_model_search_idx"');
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "vehicles_plate_number_trgm_idx" ON "vehicles" USING gin ("plate_number" gin_trgm_ops)',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "vehicles_make_trgm_idx" ON "vehicles" USING gin ("make" gin_trgm_ops)',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "vehicles_model_trgm_idx" ON "vehicles" USING gin ("model" gin_trgm_ops)',
    );
  }
}
