import { ApiError } from '../common/api-error';
import type { ColumnInfo, ResourceDefinition } from './resource-definition';
import { Params, UUID, ident } from './sql';

/** One key of a list's order: a declared column and its direction (ASC sorts NULLs last, DESC first). */
export interface SortKey {
  column: ColumnInfo;
  direction: 'ASC' | 'DESC';
}

/**
 * What a keyset cursor carries: the sort it belongs to, the last record's values of the sort keys and
 * its uuid. The internal `id` that breaks ties is looked up from the uuid, never exposed.
 */
interface CursorState {
  s: string;
  v: unknown[];
  u: string;
}

/** The opaque cursor that continues a list after `record`, for the sort `sort` (its raw text). */
export function encodeCursor(sort: string, keys: SortKey[], record: Record<string, unknown>): string {
  const state: CursorState = {
    s: sort,
    v: keys.map((key) => record[key.column.name] ?? null),
    u: String(record.uuid),
  };
  return Buffer.from(JSON.stringify(state)).toString('base64url');
}

function invalid(detail = 'cursor is not a cursor this list gave out.'): ApiError {
  return ApiError.badParameter('cursor', detail);
}

function decode(raw: string): CursorState {
  let state: unknown;
  try {
    state = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  const candidate = state as Partial<CursorState> | null;
  if (
    !candidate ||
    typeof candidate.s !== 'string' ||
    !Array.isArray(candidate.v) ||
    typeof candidate.u !== 'string' ||
    !UUID.test(candidate.u)
  )
    throw invalid();
  return candidate as CursorState;
}

function scalar(column: ColumnInfo, value: unknown): unknown {
  if (value === null) return null;
  const ok =
    column.kind === 'integer'
      ? Number.isInteger(value)
      : column.kind === 'number'
        ? typeof value === 'number' && Number.isFinite(value)
        : column.kind === 'boolean'
          ? typeof value === 'boolean'
          : column.kind === 'timestamp'
            ? typeof value === 'string' && !Number.isNaN(Date.parse(value))
            : column.kind === 'uuid'
              ? typeof value === 'string' && UUID.test(value)
              : typeof value === 'string';
  if (!ok) throw invalid();
  return value;
}

/**
 * The condition "strictly after the cursor's record" in the order of `keys` then `t.id`: a keyset
 * seek, so a deep page costs what the first one does. NULLs sort last ascending and first descending,
 * as PostgreSQL orders them.
 */
export function afterCursor(
  raw: string,
  sort: string,
  keys: SortKey[],
  def: ResourceDefinition,
  params: Params,
): string {
  const state = decode(raw);
  if (state.s !== sort) throw invalid('cursor belongs to another sort order: pass the same sort as before.');
  if (state.v.length !== keys.length) throw invalid();
  const equal: string[] = [];
  const branches: string[] = [];
  keys.forEach((key, i) => {
    const col = `t.${ident(key.column.name)}`;
    const value = scalar(key.column, state.v[i]);
    const bound = value === null ? '' : params.add(value);
    let after: string | undefined;
    if (value === null) after = key.direction === 'DESC' ? `${col} IS NOT NULL` : undefined;
    else after = key.direction === 'ASC' ? `(${col} > ${bound} OR ${col} IS NULL)` : `${col} < ${bound}`;
    if (after) branches.push([...equal, after].join(' AND '));
    equal.push(value === null ? `${col} IS NULL` : `${col} = ${bound}`);
  });
  const last = keys[keys.length - 1]?.direction ?? 'ASC';
  const id = `(SELECT c."id" FROM ${ident(def.table)} c WHERE c."uuid" = ${params.add(state.u)})`;
  branches.push([...equal, `t."id" ${last === 'DESC' ? '<' : '>'} ${id}`].join(' AND '));
  const seek = `(${branches.map((branch) => `(${branch})`).join(' OR ')})`;
  const bound = firstKeyBound(keys[0], state.v[0], params);
  return bound ? `${bound} AND ${seek}` : seek;
}

/**
 * A condition every row after the cursor meets, on the first sort key alone: implied by the seek, but
 * unlike its OR an index range, so the `(company_uuid, key, id)` index starts at the cursor instead of
 * reading (and filtering) every row before it. None where NULLs may follow the value.
 */
function firstKeyBound(key: SortKey | undefined, value: unknown, params: Params): string | undefined {
  if (!key) return undefined;
  const col = `t.${ident(key.column.name)}`;
  // ASC puts NULLs last: after a NULL only NULLs; after a value, greater values (then NULLs).
  if (key.direction === 'ASC') {
    if (value === null) return `${col} IS NULL`;
    return key.column.nullable === false ? `${col} >= ${params.add(value)}` : undefined;
  }
  // DESC puts NULLs first: after a value, only smaller ones.
  return value === null ? undefined : `${col} <= ${params.add(value)}`;
}
