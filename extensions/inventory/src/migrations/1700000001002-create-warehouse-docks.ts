import { createResourceTable } from '@wharf/core';
import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateWarehouseDocks1700000001002 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await createResourceTable(
      queryRunner,
      'warehouse_docks',
      `"warehouse_uuid" uuid NOT NULL REFERENCES "warehouses" ("uuid") ON DELETE CASCADE,
       "dock_number" varchar(255) NOT NULL,
       "direction" varchar(16) NOT NULL DEFAULT 'both' CHECK ("direction" IN ('inbound', 'outbound', 'both')),
       "capacity" integer CHECK ("capacity" >= 0),
       "status" varchar(16) NOT NULL DEFAULT 'available' CHECK ("status" IN ('available', 'occupied', 'maintenance'))`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE "warehouse_docks"');
  }
}
