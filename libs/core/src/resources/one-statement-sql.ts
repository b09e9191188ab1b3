import type { KeyedWrite } from '../database/pinned-connection';
import type { StatementChange, WriteListener } from './write-listener';
import type { ResourceDefinition } from './resource-definition';
import { recordExpression, wireValue } from './record-sql';
import type { Sql } from './sql-runner';
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
  /** A create with an Idempotency-Key: the key and the answer are stored by the statement (keyedCte). */
  keyed?: KeyedWrite;
}

/** The constraint a key already stored violates (migration 1700000000007). */
export const IDEMPOTENCY_KEY_TAKEN = 'idempotency_keys_pkey';

/**
 * The key of a keyed create and the answer the route gives, stored by the write's own statement: the status
 * (201), the headers the answer has of its own (its type and Location) and the body, `{"<key>": record}`
 * with the record's text as the statement built it. A key already stored violates the primary key and the
 * whole statement (the write with it) fails: a repeat waits on the index for the first to commit, as the
 * claim of a request in a transaction does. A create's only: the Location is the inserted row's (`w`).
 */
function keyedCte(def: ResourceDefinition, params: Params<ShapeInput>, source: string): string {
  const value = (make: (keyed: KeyedWrite) => unknown) => params.fresh((i) => make(i.keyed!));
  const root = literal(`{${JSON.stringify(def.keys.singular)}:`);
  return `k AS (INSERT INTO "idempotency_keys" ("company_uuid", "key", "route", "body_hash", "status", "headers", "body", "expires_at")
    SELECT ${value((k) => k.company)}::uuid, ${value((k) => k.key)}, ${value((k) => k.route)}, ${value((k) => k.hash)}, 201,
      jsonb_build_object('content-type', 'application/json; charset=utf-8', 'location', ${value((k) => k.collection)}::text || '/' || w."uuid"::text),
      ${root} || ${source}."record" || '}', now() + ${value((k) => k.ttlMs)}::float8 * interval '1 millisecond'
    FROM ${source}, w)`;
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

/** A write in a transaction: its change is recorded on the transaction, not by listeners in the statement. */
const NO_LISTENERS: WriteListener[] = [];

/** What a one-statement write gives back: the record as served (JSON text) and, for an update, what changed. */
export interface WrittenRecord {
  record: string;
  /** `{column: [before, after]}` as served, of the columns SQL found different (an update's). */
  changes: Record<string, [unknown, unknown]> | null;
  /** False for an update that changed nothing (nothing written, no event). */
  changed: boolean;
}

/**
 * The statement around a change: the write's CTEs, the `s` CTE the listeners read (see StatementChange),
 * then each listener's parts. Built once per shape (action, columns written, listeners) and then only given
 * new values; prepared: a route sends the same few shapes over and over. Inside a transaction the change is
 * recorded like any other (see ResourceWriter.recordChange), so no listener part is added.
 */
async function run(
  sql: Sql,
  def: ResourceDefinition,
  action: StatementChange['action'],
  input: ShapeInput,
  listeners: WriteListener[],
  build: (params: Params<ShapeInput>) => { write: string; source: string; company: string },
): Promise<WrittenRecord | undefined> {
  const key = `${action}:${listeners === NO_LISTENERS}:${input.keyed !== undefined}:${Object.keys(input.values).join('\0')}`;
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
    const ctes = [
      write,
      `s AS (${source})`,
      ...parts.flatMap((part) => part.with),
      ...(input.keyed ? [keyedCte(def, params, 's')] : []),
    ];
    const select = ['s."record"', 's."changes"', 's."changed"', ...parts.flatMap((part) => part.select)];
    text = `WITH ${ctes.join(',\n')}\nSELECT ${select.join(', ')} FROM s`;
    values = params.values;
    if (known.size < MAX_SHAPES) known.set(key, { text, params, listeners });
  }
  const [row] = await sql.rows(text, values, true);
  return (
    row && { record: row.record as string, changes: row.changes ?? null, changed: row.changed as boolean }
  );
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
  /** The Idempotency-Key of the request, stored with the answer by the same statement (keyedCte). */
  keyed?: KeyedWrite,
): Promise<WrittenRecord | undefined> {
  values = inDeclarationOrder(def, values);
  return run(sql, def, 'created', { values, company, keyed }, listeners, (params) => {
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
 * The one statement of every update of a record's own columns: locks the caller's record, writes the
 * columns of `values` (non-empty) that differ from it (`updated_at` only then), reads it back as served and,
 * given listeners, lets them record the change — `{column: [old, new]}` as served, of the columns SQL found
 * different. Undefined when there is no such record.
 *
 * With listeners it runs on its own and its lock is NOWAIT: a record another write holds fails at once with
 * LOCK_NOT_AVAILABLE, and the caller writes in a transaction that waits for it. Its embeds are read from the
 * statement's snapshot: after a wait they would be as they were before the holder committed. In a
 * transaction (no listeners) the caller holds the lock already, and the change is recorded on it.
 */
export function updateInOneStatement(
  sql: Sql,
  def: ResourceDefinition,
  company: string,
  uuid: string,
  values: Record_,
  /** The listeners of a write on its own; `inTransaction` for one in a transaction holding the lock. */
  listeners: WriteListener[] | 'inTransaction',
): Promise<WrittenRecord | undefined> {
  if (!UUID.test(uuid)) return Promise.resolve(undefined);
  values = inDeclarationOrder(def, values);
  const alone = listeners !== 'inTransaction';
  const lock = alone ? 'FOR UPDATE NOWAIT' : 'FOR UPDATE';
  return run(sql, def, 'updated', { values, company, uuid }, alone ? listeners : NO_LISTENERS, (params) => {
    const columns = Object.keys(values);
    const companyParam = params.fresh((i) => i.company);
    const uuidParam = params.fresh((i) => i.uuid);
    const value = (column: string) => params.fresh((i) => columnValue(def, column, i.values[column]));
    const write = `${lockedUpdateCtes(def, companyParam, uuidParam, columns, value, lock)},
    r AS (SELECT * FROM u UNION ALL SELECT b.* FROM b WHERE NOT EXISTS (SELECT 1 FROM u))`;
    const pairs = columns.map((column, i) => {
      // A hidden column (a hook may write one) is no column of the record: its value as PostgreSQL writes it.
      const info = def.columns.get(column) ?? { name: column, kind: 'string' as const };
      return `(${literal(column)}, d."f${i}", json_build_array(${wireValue('b', info)}, ${wireValue('r', info)}))`;
    });
    const changes = `(SELECT json_object_agg(c.k, c.v) FROM (VALUES ${pairs.join(', ')}) c(k, f, v) WHERE c.f)`;
    const source = `SELECT ${recordExpression(def, 'r')} AS "record", ${changes} AS "changes", (${anyDiffers(columns)}) AS "changed" FROM r, b, d`;
    return { write, source, company: companyParam };
  });
}
