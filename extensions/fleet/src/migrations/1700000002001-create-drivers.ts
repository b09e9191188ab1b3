import { createResourceTable } from '@wharf/core';
import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateDrivers1700000002001 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await createResourceTable(
      queryRunner,
      'drivers',
      `"vehicle_uuid" uuid REFERENCES "vehicles" ("uuid") ON DELETE SET NULL,
       "name" varchar(255) NOT NULL, "phone" varchar(64), "email" varchar(255),
       "status" varchar(16) NOT NULL DEFAULT 'active' CHECK ("status" IN ('active', 'inactive')),
       "location" jsonb, "location_updated_at" timestamptz(3)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE "drivers"');
  }
}
