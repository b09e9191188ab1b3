import { MigrationInterface, QueryRunner } from 'typeorm';
import { createResourceTable } from '@wharf/core';

export class CreateLocations1700000000001 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await createResourceTable(
      queryRunner,
      'locations',
      `"name" varchar(255) NOT NULL,
       "street" varchar(255), "city" varchar(255), "state" varchar(255), "zip" varchar(255), "country" varchar(255),
       "latitude" double precision CHECK ("latitude" BETWEEN -90 AND 90),
       "longitude" double precision CHECK ("longitude" BETWEEN -180 AND 180)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE "locations"');
  }
}
