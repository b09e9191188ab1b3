import { MigrationInterface, QueryRunner } from 'typeorm';
import { SEARCH_QUERY_FUNCTION } from './1700000000003-search-grams';

/**
 * One body for a search's query: `wharf_search_query(text)` becomes `wharf_search_query(text, '{}')` (no
 * gram left out), where it repeated the two-argument function's gram positions and quoting
 * (1700000000004), so the two could drift apart.
 */
export class SearchQueryOneBody1700000000005 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE OR REPLACE FUNCTION wharf_search_query(text) RETURNS tsquery
      LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$ SELECT wharf_search_query($1, '{}'::text[]) $$`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(SEARCH_QUERY_FUNCTION);
  }
}
