import { createResourceTable } from '@wharf/core';
import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateWarehouses1700000001000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await createResourceTable(
      queryRunner,
      'warehouses',
      `"location_uuid" uuid REFERENCES "locations" ("uuid") ON DELETE SET NULL,
       "name" varchar(255) NOT NULL, "address" varchar(255) NOT NULL, "city" varchar(255) NOT NULL,
       "state" varchar(255) NOT NULL, "zip" varchar(255) NOT NULL,
       "capacity" integer NOT NULL, "is_primary" boolean NOT NULL DEFAULT false`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE "warehouses"');
  }
}
