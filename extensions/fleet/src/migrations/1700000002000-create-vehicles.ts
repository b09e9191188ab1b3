import { createResourceTable } from '@wharf/core';
import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateVehicles1700000002000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await createResourceTable(
      queryRunner,
      'vehicles',
      `"plate_number" varchar(255) NOT NULL, "make" varchar(255), "model" varchar(255),
       "year" integer CHECK ("year" BETWEEN 1900 AND 2100),
       "status" varchar(16) NOT NULL DEFAULT 'active' CHECK ("status" IN ('active', 'inactive', 'maintenance'))`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE "vehicles"');
  }
}
