import type { StatementChange, WriteListener } from './resource-change';
import type { ResourceDefinition } from './resource-definition';
import { recordExpression, wireValue } from './record-sql';
import type { Sql } from './resource-sql';
import { anyDiffers, lockedUpdateCtes } from './locked-update-sql';
import { Params, UUID, columnValue, ident, literal } from './sql';

type Record_ = Record<string, unknown>;

/**
 * `values` with its columns in declaration order: a statement's shape then depends on which columns a client
 * sends, not on their order, so the prepared shapes stay few.
 */
function inDeclarationOrder(def: ResourceDefinition, values: Record_): Record_ {
  const ordered: Record_ = {};
  for (const column of def.columns.keys())
    if (Object.hasOwn(values, column)) ordered[column] = values[column];
  return Object.assign(ordered, values);
}

/** PostgreSQL's lock_not_available: a NOWAIT lock found the row held. */
export const LOCK_NOT_AVAILABLE = '55P03';

/** What a one-statement write's values are made from (see Params.fresh). */
interface ShapeInput {
  values: Record_;
  company: string;
  uuid?: string;
}

/** A write statement built for one shape: its text, and the parameters to make each execution's values. */
interface WriteShape {
  text: string;
  params: Params<ShapeInput>;
  listeners: WriteListener[];
}

/**
 * Shapes per resource past which a write's statement is built for itself, not kept: a shape follows the
 * columns a client sends, so a client could otherwise grow this at will.
 */
const MAX_SHAPES = 64;
const shapes = new WeakMap<ResourceDefinition, Map<string, WriteShape>>();

/**
 * The statement around a change: the write's CTEs, the `s` CTE the listeners read (see StatementChange),
 * then each listener's parts. Built once per shape (action and columns written) and then only given new
 * values: building and naming it, listeners' parts included, would otherwise be repeated on every write.
 * Prepared: a route sends the same few shapes over and over.
 */
async function run(
  sql: Sql,
  def: ResourceDefinition,
  action: StatementChange['action'],
  input: ShapeInput,
  listeners: WriteListener[],
  build: (params: Params<ShapeInput>) => { write: string; source: string; company: string },
): Promise<Record_ | undefined> {
  const key = `${action}:${Object.keys(input.values).join('\0')}`;
  let known = shapes.get(def);
  if (!known) shapes.set(def, (known = new Map()));
  const shape = known.get(key);
  let text: string;
  let values: unknown[];
  if (shape && shape.listeners === listeners) {
    text = shape.text;
    values = shape.params.valuesFor(input);
  } else {
    const params = new Params(input);
    const { write, source, company } = build(params);
    const parts = listeners.map((listener, i) =>
      listener.inStatement!({ resource: def, action, params, company, source: 's', prefix: `l${i}_` }),
    );
    const ctes = [write, `s AS (${source})`, ...parts.flatMap((part) => part.with)];
    const select = ['s."record"', ...parts.flatMap((part) => part.select)];
    text = `WITH ${ctes.join(',\n')}\nSELECT ${select.join(', ')} FROM s`;
    values = params.values;
    if (known.size < MAX_SHAPES) known.set(key, { text, params, listeners });
  }
  const [row] = await sql.rows(text, values, true);
  return row?.record as Record_ | undefined;
}

/**
 * Inserts a record of the caller's company, reads it back as served (embeds included: a new record has
 * none but its to-one reference) and lets the listeners record the change: one statement, committed on
 * its own, where a transaction took five round trips.
 */
export function insertInOneStatement(
  sql: Sql,
  def: ResourceDefinition,
  company: string,
  values: Record_,
  listeners: WriteListener[],
): Promise<Record_ | undefined> {
  values = inDeclarationOrder(def, values);
  return run(sql, def, 'created', { values, company }, listeners, (params) => {
    const columns = Object.keys(values);
    const placeholders = columns.map((column) =>
      params.fresh((i) => columnValue(def, column, i.values[column])),
    );
    const companyParam = params.fresh((i) => i.company);
    const write = `w AS (INSERT INTO ${ident(def.table)} (${[...columns, 'company_uuid'].map(ident).join(', ')})
    VALUES (${[...placeholders, companyParam].join(', ')}) RETURNING *)`;
    const source = `SELECT ${recordExpression(def, 'w', 'inserted')} AS "record", NULL::json AS "changes", true AS "changed" FROM w`;
    return { write, source, company: companyParam };
  });
}

/**
 * Locks the caller's record, writes the columns of `values` that differ from it (`updated_at` only then),
 * reads it back as served and lets the listeners record the change — `{column: [old, new]}` as served, of
 * the columns SQL found different — in one statement committed on its own. Undefined when there is no
 * such record.
 *
 * The lock is NOWAIT: a record another write holds fails at once with LOCK_NOT_AVAILABLE (the caller then
 * writes in a transaction, waiting for it). This bounds what the read-back can miss: its embeds are read
 * from the statement's snapshot, so a waited-for lock would have them as they were before the holder
 * committed; without waiting they are as of this statement's start.
 */
export function updateInOneStatement(
  sql: Sql,
  def: ResourceDefinition,
  company: string,
  uuid: string,
  values: Record_,
  listeners: WriteListener[],
): Promise<Record_ | undefined> {
  if (!UUID.test(uuid)) return Promise.resolve(undefined);
  values = inDeclarationOrder(def, values);
  return run(sql, def, 'updated', { values, company, uuid }, listeners, (params) => {
    const columns = Object.keys(values);
    const companyParam = params.fresh((i) => i.company);
    const uuidParam = params.fresh((i) => i.uuid);
    const value = (column: string) => params.fresh((i) => columnValue(def, column, i.values[column]));
    const write = `${lockedUpdateCtes(def, companyParam, uuidParam, columns, value, 'FOR UPDATE NOWAIT')},
    r AS (SELECT * FROM u UNION ALL SELECT b.* FROM b WHERE NOT EXISTS (SELECT 1 FROM u))`;
    const pairs = columns.map((column, i) => {
      const info = def.columns.get(column)!;
      return `(${literal(column)}, d."f${i}", json_build_array(${wireValue('b', info)}, ${wireValue('r', info)}))`;
    });
    const changes = `(SELECT json_object_agg(c.k, c.v) FROM (VALUES ${pairs.join(', ')}) c(k, f, v) WHERE c.f)`;
    const source = `SELECT ${recordExpression(def, 'r')} AS "record", ${changes} AS "changes", (${anyDiffers(columns)}) AS "changed" FROM r, b, d`;
    return { write, source, company: companyParam };
  });
}
