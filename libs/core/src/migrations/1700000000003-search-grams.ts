import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The grams a value containing the text must have: the text itself as a prefix when shorter than a gram,
 * otherwise non-overlapping grams from its start (ten at most) and its last gram, all required; or the
 * long-value marker. The text is quoted as a tsquery lexeme (backslash and quote escaped), never parsed.
 * (Since 1700000000005 a call of `wharf_search_query(text, text[])`; this is what its down restores.)
 */
export const SEARCH_QUERY_FUNCTION = `CREATE OR REPLACE FUNCTION wharf_search_query(text) RETURNS tsquery
      LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$
      SELECT (string_agg('''' || replace(replace(substr(v, p, 5), '\\', '\\\\'), '''', '''''') || ''''
                         || CASE WHEN length(v) < 5 THEN ':*' ELSE '' END, ' & ' ORDER BY p)
              || ' | ''' || chr(1) || '''')::tsquery
        FROM lower($1) AS v,
             LATERAL (SELECT generate_series(1, least(length(v) - 4, 46), 5)
                      UNION SELECT greatest(length(v) - 4, 1)) AS w(p)
      $$`;

/**
 * The search index of locations replaces their trigram indexes (see SEARCH_GRAM in list-indexes.ts: a trigram
 * index reads every posting list of the common trigrams for each candidate of the rarest, which grows with
 * the table), with the two functions every extension's search index and query use.
 */
export class SearchGrams1700000000003 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    // Every substring of 5 characters starting at each position of each lowered value (shorter at its
    // end); a value over 8,000 characters is the marker chr(1) instead, so its tsvector stays far under
    // PostgreSQL's 1 MB and the query always takes such rows as candidates (the ILIKE decides).
    await queryRunner.query(`CREATE OR REPLACE FUNCTION wharf_search_grams(VARIADIC vals text[]) RETURNS tsvector
      LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE STRICT AS $$
      DECLARE
        grams text[] := '{}';
        v text;
        n int;
      BEGIN
        FOREACH v IN ARRAY vals LOOP
          v := lower(v);
          n := length(v);
          IF n > 8000 THEN
            grams := grams || chr(1);
          ELSIF n > 0 THEN
            FOR i IN 1..n LOOP
              grams := grams || substr(v, i, 5);
            END LOOP;
          END IF;
        END LOOP;
        RETURN array_to_tsvector(grams);
      END $$`);
    await queryRunner.query(SEARCH_QUERY_FUNCTION);
    await queryRunner.query('DROP INDEX IF EXISTS "locations_name_trgm_idx"');
    await queryRunner.query('DROP INDEX IF EXISTS "locations_city_trgm_idx"');
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "locations_name_city_search_idx" ON "locations" USING gin (wharf_search_grams("name", "city"))',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX IF EXISTS "locations_name_city_search_idx"');
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "locations_name_trgm_idx" ON "locations" USING gin ("name" gin_trgm_ops)',
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "locations_city_trgm_idx" ON "locations" USING gin ("city" gin_trgm_ops)',
    );
    await queryRunner.query('DROP FUNCTION IF EXISTS wharf_search_query(text)');
    await queryRunner.query('DROP FUNCTION IF EXISTS wharf_search_grams(VARIADIC text[])');
  }
}
