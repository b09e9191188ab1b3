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
  const columns = Object.keys(values);
  const written = columns.map((column, i) => `CASE WHEN d."f${i}" THEN ${literal(column)} END`);
  const rows = await sql.rows(
    `WITH ${lockedUpdateCtes(def, params.add(company), params.add(uuid), columns, (column) => bind(def, params, column, values[column]), 'FOR UPDATE')}
     SELECT false AS "__after", array_remove(ARRAY[${written.join(', ')}]::text[], NULL) AS "__written", b.* FROM b, d
     UNION ALL SELECT true, NULL, u.* FROM u`,
    params.values,
  );
  const before = rows.find((row) => !row.__after);
  if (!before) return undefined;
  const after = rows.find((row) => row.__after);
  return { before: rowOf(before), written: before.__written as string[], after: after && rowOf(after) };
}

/**
 * The CTEs of a locked update of the caller's record (both placeholders given): `b` the stored row, locked
 * with `lock`; `d` its uuid and, per column of `columns` (non-empty), `f<i>`: whether the value differs;
 * `u` the row as written, absent when nothing differed (then nothing is written, `updated_at` kept).
 * `value(column)` binds the column's new value as a parameter and returns its placeholder.
 */
export function lockedUpdateCtes(
  def: ResourceDefinition,
  companyParam: string,
  uuidParam: string,
  columns: string[],
  value: (column: string) => string,
  lock: 'FOR UPDATE' | 'FOR UPDATE NOWAIT',
): string {
  const table = ident(def.table);
  // json has no equality operator; jsonb's ignores key order and whitespace, as a client means it.
  const differs = columns.map((column, i) => {
    const bound = value(column);
    const json = def.columns.get(column)?.kind === 'json';
    const stored = `b.${ident(column)}`;
    return `${json ? `${stored}::jsonb` : stored} IS DISTINCT FROM ${json ? `${bound}::jsonb` : bound} AS "f${i}"`;
  });
  const sets = columns.map(
    (column, i) => `${ident(column)} = CASE WHEN d."f${i}" THEN ${value(column)} ELSE t.${ident(column)} END`,
  );
  return `b AS MATERIALIZED (SELECT * FROM ${table} WHERE "uuid" = ${uuidParam} AND "company_uuid" = ${companyParam} ${lock}),
    d AS (SELECT b."uuid", ${differs.join(', ')} FROM b),
    u AS (UPDATE ${table} t SET ${[...sets, '"updated_at" = now()'].join(', ')} FROM d
          WHERE t."uuid" = d."uuid" AND t."company_uuid" = ${companyParam} AND (${anyDiffers(columns)}) RETURNING t.*)`;
}

/** Whether any column of a locked update differs (see lockedUpdateCtes). */
export const anyDiffers = (columns: string[]) => columns.map((_, i) => `d."f${i}"`).join(' OR ');

function rowOf({ __after, __written, ...row }: ResourceRow): ResourceRow {
  void __after;
  void __written;
  return row;
}
