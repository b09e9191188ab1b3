import type { StatementChange, WriteListener } from './resource-change';
import type { ResourceDefinition } from './resource-definition';
import { recordExpression, wireValue } from './record-sql';
import type { Sql } from './resource-sql';
import { anyDiffers, lockedUpdateCtes } from './locked-update-sql';
import { Params, UUID, bind, ident, literal } from './sql';

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

/**
 * The statement around a change: the write's CTEs, the `s` CTE the listeners read (see StatementChange),
 * then each listener's parts. Prepared: a route sends the same few shapes over and over.
 */
async function run(
  sql: Sql,
  write: string,
  source: string,
  change: Omit<StatementChange, 'source' | 'prefix'>,
  listeners: WriteListener[],
): Promise<Record_ | undefined> {
  const parts = listeners.map((listener, i) =>
    listener.inStatement!({ ...change, source: 's', prefix: `l${i}_` }),
  );
  const ctes = [write, `s AS (${source})`, ...parts.flatMap((part) => part.with)];
  const select = ['s."record"', ...parts.flatMap((part) => part.select)];
  const [row] = await sql.rows(
    `WITH ${ctes.join(',\n')}\nSELECT ${select.join(', ')} FROM s`,
    change.params.values,
    true,
  );
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
  const params = new Params();
  const columns = Object.keys(values);
  const placeholders = columns.map((column) => bind(def, params, column, values[column]));
  const companyParam = params.add(company);
  const write = `w AS (INSERT INTO ${ident(def.table)} (${[...columns, 'company_uuid'].map(ident).join(', ')})
    VALUES (${[...placeholders, companyParam].join(', ')}) RETURNING *)`;
  const source = `SELECT ${recordExpression(def, 'w')} AS "record", NULL::json AS "changes", true AS "changed" FROM w`;
  return run(
    sql,
    write,
    source,
    { resource: def, action: 'created', params, company: companyParam },
    listeners,
  );
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
  const params = new Params();
  const columns = Object.keys(values);
  const companyParam = params.add(company);
  const write = `${lockedUpdateCtes(def, params, companyParam, params.add(uuid), values, 'FOR UPDATE NOWAIT')},
    r AS (SELECT * FROM u UNION ALL SELECT b.* FROM b WHERE NOT EXISTS (SELECT 1 FROM u))`;
  const pairs = columns.map((column, i) => {
    const info = def.columns.get(column)!;
    return `(${literal(column)}, d."f${i}", json_build_array(${wireValue('b', info)}, ${wireValue('r', info)}))`;
  });
  const changes = `(SELECT json_object_agg(c.k, c.v) FROM (VALUES ${pairs.join(', ')}) c(k, f, v) WHERE c.f)`;
  const source = `SELECT ${recordExpression(def, 'r')} AS "record", ${changes} AS "changes", (${anyDiffers(columns)}) AS "changed" FROM r, b, d`;
  return run(
    sql,
    write,
    source,
    { resource: def, action: 'updated', params, company: companyParam },
    listeners,
  );
}
