import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What an endpoint receives and how it is sent: a payload filter (the document as written, and its
 * compiled SQL/JSON path and variables, which the fan-out statement evaluates), static headers and an auth
 * scheme (the names and non-secret fields shown by the API; the values sealed with APP_KEY). Every column
 * is nullable with no default: adding them rewrites no row.
 */
export class RouteEndpoints1700000000113 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "webhook_endpoints"
      ADD COLUMN "filter" jsonb, ADD COLUMN "filter_path" jsonpath, ADD COLUMN "filter_vars" jsonb,
      ADD COLUMN "headers" jsonb, ADD COLUMN "headers_sealed" text,
      ADD COLUMN "auth" jsonb, ADD COLUMN "auth_sealed" text`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "webhook_endpoints"
      DROP COLUMN "filter", DROP COLUMN "filter_path", DROP COLUMN "filter_vars",
      DROP COLUMN "headers", DROP COLUMN "headers_sealed", DROP COLUMN "auth", DROP COLUMN "auth_sealed"`);
  }
}
