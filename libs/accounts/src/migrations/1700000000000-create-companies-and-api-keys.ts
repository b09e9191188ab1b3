import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateCompaniesAndApiKeys1700000000000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE "companies" (
      "id" serial PRIMARY KEY,
      "uuid" uuid NOT NULL UNIQUE DEFAULT gen_random_uuid(),
      "name" varchar(255) NOT NULL,
      "created_at" timestamptz NOT NULL DEFAULT now(),
      "updated_at" timestamptz NOT NULL DEFAULT now()
    )`);
    await queryRunner.query(`CREATE TABLE "api_keys" (
      "id" serial PRIMARY KEY,
      "uuid" uuid NOT NULL UNIQUE DEFAULT gen_random_uuid(),
      "company_uuid" uuid NOT NULL REFERENCES "companies" ("uuid") ON DELETE CASCADE,
      "name" varchar(255),
      "prefix" varchar(32) NOT NULL,
      "last_four" varchar(4) NOT NULL,
      "key_hash" char(64) NOT NULL UNIQUE,
      "last_used_at" timestamptz,
      "revoked_at" timestamptz,
      "created_at" timestamptz NOT NULL DEFAULT now(),
      "updated_at" timestamptz NOT NULL DEFAULT now()
    )`);
    await queryRunner.query('CREATE INDEX "api_keys_company_uuid_idx" ON "api_keys" ("company_uuid")');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE "api_keys"');
    await queryRunner.query('DROP TABLE "companies"');
  }
}
