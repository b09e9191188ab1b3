import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The list indexes of vehicles, drivers and orders (written by migration:generate from their declarations; see
 * list-indexes.ts in @wharf/core): a B-tree (company_uuid, column, id) per sortable column, a trigram
 * GIN per searchable one.
 */
export class ListIndexes1700000002003 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "vehicles_uuid_sort_idx" ON "vehicles" USING btree ("company_uuid", "uuid", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "vehicles_created_at_sort_idx" ON "vehicles" USING btree ("company_uuid", "created_at", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "vehicles_updated_at_sort_idx" ON "vehicles" USING btree ("company_uuid", "updated_at", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "vehicles_plate_number_sort_idx" ON "vehicles" USING btree ("company_uuid", "plate_number", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "vehicles_make_sort_idx" ON "vehicles" USING btree ("company_uuid", "make", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "vehicles_model_sort_idx" ON "vehicles" USING btree ("company_uuid", "model", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "vehicles_year_sort_idx" ON "vehicles" USING btree ("company_uuid", "year", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "vehicles_status_sort_idx" ON "vehicles" USING btree ("company_uuid", "status", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "vehicles_plate_number_trgm_idx" ON "vehicles" USING gin ("plate_number" gin_trgm_ops)',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "vehicles_make_trgm_idx" ON "vehicles" USING gin ("make" gin_trgm_ops)',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "vehicles_model_trgm_idx" ON "vehicles" USING gin ("model" gin_trgm_ops)',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "orders_uuid_sort_idx" ON "orders" USING btree ("company_uuid", "uuid", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "orders_created_at_sort_idx" ON "orders" USING btree ("company_uuid", "created_at", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "orders_updated_at_sort_idx" ON "orders" USING btree ("company_uuid", "updated_at", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "orders_reference_sort_idx" ON "orders" USING btree ("company_uuid", "reference", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "orders_status_sort_idx" ON "orders" USING btree ("company_uuid", "status", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "orders_driver_uuid_sort_idx" ON "orders" USING btree ("company_uuid", "driver_uuid", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "orders_pickup_location_uuid_sort_idx" ON "orders" USING btree ("company_uuid", "pickup_location_uuid", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "orders_dropoff_location_uuid_sort_idx" ON "orders" USING btree ("company_uuid", "dropoff_location_uuid", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "orders_scheduled_at_sort_idx" ON "orders" USING btree ("company_uuid", "scheduled_at", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "orders_reference_trgm_idx" ON "orders" USING gin ("reference" gin_trgm_ops)',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "orders_notes_trgm_idx" ON "orders" USING gin ("notes" gin_trgm_ops)',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "drivers_uuid_sort_idx" ON "drivers" USING btree ("company_uuid", "uuid", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "drivers_created_at_sort_idx" ON "drivers" USING btree ("company_uuid", "created_at", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "drivers_updated_at_sort_idx" ON "drivers" USING btree ("company_uuid", "updated_at", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "drivers_vehicle_uuid_sort_idx" ON "drivers" USING btree ("company_uuid", "vehicle_uuid", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "drivers_name_sort_idx" ON "drivers" USING btree ("company_uuid", "name", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "drivers_phone_sort_idx" ON "drivers" USING btree ("company_uuid", "phone", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "drivers_email_sort_idx" ON "drivers" USING btree ("company_uuid", "email", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "drivers_status_sort_idx" ON "drivers" USING btree ("company_uuid", "status", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "drivers_location_updated_at_sort_idx" ON "drivers" USING btree ("company_uuid", "location_updated_at", "id")',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "drivers_name_trgm_idx" ON "drivers" USING gin ("name" gin_trgm_ops)',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "drivers_phone_trgm_idx" ON "drivers" USING gin ("phone" gin_trgm_ops)',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "drivers_email_trgm_idx" ON "drivers" USING gin ("email" gin_trgm_ops)',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX IF EXISTS "drivers_email_trgm_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "drivers_phone_trgm_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "drivers_name_trgm_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "drivers_location_updated_at_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "drivers_status_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "drivers_email_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "drivers_phone_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "drivers_name_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "drivers_vehicle_uuid_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "drivers_updated_at_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "drivers_created_at_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "drivers_uuid_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "orders_notes_trgm_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "orders_reference_trgm_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "orders_scheduled_at_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "orders_dropoff_location_uuid_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "orders_pickup_location_uuid_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "orders_driver_uuid_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "orders_status_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "orders_reference_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "orders_updated_at_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "orders_created_at_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "orders_uuid_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "vehicles_model_trgm_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "vehicles_make_trgm_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "vehicles_plate_number_trgm_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "vehicles_status_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "vehicles_year_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "vehicles_model_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "vehicles_make_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "vehicles_plate_number_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "vehicles_updated_at_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "vehicles_created_at_sort_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "vehicles_uuid_sort_idx"');
  }
}
