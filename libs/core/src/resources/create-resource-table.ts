import { QueryRunner } from 'typeorm';

/**
 * Creates a resource table with the base columns (id, uuid, company_uuid, timestamps) followed by
 * `columns` (SQL column definitions), and indexes every `*_uuid` column. Timestamps keep milliseconds,
 * the precision they are serialised with, so a value a client read back filters exactly.
 */
export async function createResourceTable(
  queryRunner: QueryRunner,
  table: string,
  columns: string,
): Promise<void> {
  const own = columns.trim().replace(/,\s*$/, '');
  await queryRunner.query(`CREATE TABLE "${table}" (
    "id" serial PRIMARY KEY,
    "uuid" uuid UNIQUE DEFAULT gen_random_uuid(),
    "company_uuid" uuid REFERENCES "companies" ("uuid") ON DELETE CASCADE,
    ${own ? `${own},` : ''}
    "created_at" timestamptz(3) NOT NULL DEFAULT now(),
    "updated_at" timestamptz(3) NOT NULL DEFAULT now()
  )`);
  const foreign = [...own.matchAll(/"?([a-z0-9_]+_uuid)"?\s+uuid/g)].map((match) => match[1]);
  for (const column of ['company_uuid', ...foreign]) {
    await queryRunner.query(`CREATE INDEX "${table}_${column}_idx" ON "${table}" ("${column}")`);
  }
}
