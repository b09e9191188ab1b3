import { createResourceTable } from '@wharf/core';
import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateYards1800000100000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await createResourceTable(
      queryRunner,
      'acme_yards',
      `"name" varchar(255) NOT NULL, "slots" integer NOT NULL, "closed" boolean NOT NULL DEFAULT false`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE "acme_yards"');
  }
}
