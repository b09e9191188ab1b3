import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `wharf_search_query(text, frequent)`: the query of `wharf_search_query(text)` without the grams listed
 * (those most rows of the index hold, read from its statistics: see FrequentGrams), unless that leaves none.
 * GIN walks a required gram's posting tree for every candidate the rarest one proposes, so grams in nearly
 * every row ("wareh" of "Warehouse N") cost reads that grow with the table and narrow nothing down. Leaving a
 * gram out only adds candidates, which the ILIKE beside it rechecks.
 */
export class SearchWithoutFrequentGrams1700000000004 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE OR REPLACE FUNCTION wharf_search_query(text, text[]) RETURNS tsquery
      LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$
      WITH grams AS (
        SELECT p, substr(v, p, 5) AS gram, length(v) < 5 AS short
          FROM lower($1) AS v,
               LATERAL (SELECT generate_series(1, least(length(v) - 4, 46), 5)
                        UNION SELECT greatest(length(v) - 4, 1)) AS w(p)
      ), rare AS (
        SELECT * FROM grams WHERE gram <> ALL ($2)
      ), kept AS (
        SELECT * FROM rare UNION ALL SELECT * FROM grams WHERE NOT EXISTS (SELECT 1 FROM rare)
      )
      SELECT (string_agg('''' || replace(replace(gram, '\\', '\\\\'), '''', '''''') || ''''
                         || CASE WHEN short THEN ':*' ELSE '' END, ' & ' ORDER BY p)
              || ' | ''' || chr(1) || '''')::tsquery
        FROM kept
      $$`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP FUNCTION IF EXISTS wharf_search_query(text, text[])');
  }
}
