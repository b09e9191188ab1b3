import type { ResourceDefinition } from './resource-definition';
import type { ResourceRow } from './resource-hooks';
import type { Sql } from './resource-sql';
import { Params, UUID, bind, ident, literal } from './sql';

/** What one locked update found and did. */
export interface LockedUpdate {
  /** The stored row as it was, locked until the transaction ends. */
  before: ResourceRow;
  /** The columns the statement wrote: those whose value `IS DISTINCT FROM` the stored one. */
  written: string[];
  /** The row as written; undefined when no column differed (then nothing was written, `updated_at` kept). */
  after?: ResourceRow;
}

/**
 * Locks the caller's record, writes the columns of `values` that differ from it and returns the row before
 * and after: one statement where a locking SELECT and an UPDATE were two. `values` must not be empty.
 * Undefined when the caller has no such record.
 */
export async function lockAndUpdate(
  sql: Sql,
  def: ResourceDefinition,
  company: string,
  uuid: string,
  values: Record<string, unknown>,
): Promise<LockedUpdate | undefined> {
  if (!UUID.test(uuid)) return undefined;
  const params = new Params();
  const table = ident(def.table);
  const uuidParam = params.add(uuid);
  const companyParam = params.add(company);
  const columns = Object.keys(values);
  // json has no equality operator; jsonb's ignores key order and whitespace, as a client means it.
  const differs = columns.map((column, i) => {
    const value = bind(def, params, column, values[column]);
    const json = def.columns.get(column)?.kind === 'json';
    const stored = `b.${ident(column)}`;
    return `${json ? `${stored}::jsonb` : stored} IS DISTINCT FROM ${json ? `${value}::jsonb` : value} AS "f${i}"`;
  });
  const sets = columns.map(
    (column, i) =>
      `${ident(column)} = CASE WHEN d."f${i}" THEN ${bind(def, params, column, values[column])} ELSE t.${ident(column)} END`,
  );
  const written = columns.map((column, i) => `CASE WHEN d."f${i}" THEN ${literal(column)} END`);
  const rows = await sql.rows(
    `WITH b AS MATERIALIZED (SELECT * FROM ${table} WHERE "uuid" = ${uuidParam} AND "company_uuid" = ${companyParam} FOR UPDATE),
       d AS (SELECT b."uuid", ${differs.join(', ')} FROM b),
       u AS (UPDATE ${table} t SET ${[...sets, '"updated_at" = now()'].join(', ')} FROM d
             WHERE t."uuid" = d."uuid" AND t."company_uuid" = ${companyParam}
               AND (${columns.map((_, i) => `d."f${i}"`).join(' OR ')}) RETURNING t.*)
     SELECT false AS "__after", array_remove(ARRAY[${written.join(', ')}]::text[], NULL) AS "__written", b.* FROM b, d
     UNION ALL SELECT true, NULL, u.* FROM u`,
    params.values,
  );
  const before = rows.find((row) => !row.__after);
  if (!before) return undefined;
  const after = rows.find((row) => row.__after);
  return { before: rowOf(before), written: before.__written as string[], after: after && rowOf(after) };
}

function rowOf({ __after, __written, ...row }: ResourceRow): ResourceRow {
  void __after;
  void __written;
  return row;
}
