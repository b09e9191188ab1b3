import type { ResourceDefinition } from './resource-definition';
import { ident } from './sql';

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
