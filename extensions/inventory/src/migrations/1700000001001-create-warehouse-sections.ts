import { createResourceTable } from '@wharf/core';
import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateWarehouseSections1700000001001 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await createResourceTable(
      queryRunner,
      'warehouse_sections',
      `"warehouse_uuid" uuid NOT NULL REFERENCES "warehouses" ("uuid") ON DELETE CASCADE,
       "name" varchar(255) NOT NULL, "description" text`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE "warehouse_sections"');
  }
}
