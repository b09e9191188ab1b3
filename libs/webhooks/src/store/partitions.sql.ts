import { UNDISPATCHED_EVENTS } from './tables';

/*
 * The statements of the partitioned tables' upkeep (stages/lifecycle/partitions.ts and retention.ts):
 * partitions created, attached, detached and dropped, the default partition rotated, and what retention
 * checks before a drop. Table and partition names are the store's own (tables.ts, and names made from
 * them), never input.
 */

/** A partitioned table as its statements need it (stages/lifecycle/partitioned-tables.ts has the two). */
export interface Partitioned {
  name: string;
  /** The partition key's column. */
  key: string;
  /** The SQL literal of the key's bound at `ms`. */
  bound(ms: number): string;
}

/** A table's partitions and their bounds ($1 the table). */
export const PARTITION_BOUNDS = `SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
     FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = $1::regclass`;

/** A table's ($1) columns, quoted, in order: the list of an INSERT … SELECT between its partitions. */
export const COLUMN_LIST = `SELECT string_agg(quote_ident(attname), ', ' ORDER BY attnum) AS list FROM pg_attribute
     WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped`;

/** Whether the table $1 exists. */
export const TABLE_EXISTS = `SELECT to_regclass($1) IS NOT NULL AS present`;

/** About how many rows the table $1 holds (from its statistics). */
export const ROW_ESTIMATE = `SELECT greatest(reltuples, 0)::bigint AS n FROM pg_class WHERE oid = $1::regclass`;

/** An empty table shaped as `table`, to attach as its partition `name`. */
export const createDetached = (table: Partitioned, name: string) =>
  `CREATE TABLE IF NOT EXISTS "${name}" (LIKE "${table.name}" INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`;

/** Attaches `name` as the partition of `table` holding `forValues` (`FOR VALUES FROM (…) TO (…)`). */
export const attachPartition = (table: Partitioned, name: string, forValues: string) =>
  `ALTER TABLE "${table.name}" ATTACH PARTITION "${name}" ${forValues}`;

export const detachPartition = (table: Partitioned, name: string) =>
  `ALTER TABLE "${table.name}" DETACH PARTITION "${name}"`;

/** The default partition `name` of `table` (IF NOT EXISTS unless `replacing` one just detached). */
export const createDefault = (table: Partitioned, name: string, replacing = false) =>
  `CREATE TABLE ${replacing ? '' : 'IF NOT EXISTS '}"${name}" PARTITION OF "${table.name}" DEFAULT`;

export const renameTable = (from: string, to: string) => `ALTER TABLE "${from}" RENAME TO "${to}"`;

export const dropTable = (name: string) => `DROP TABLE "${name}"`;

/** Locks `table` and its partition `name`, the parent first, as every reader locks them. */
export const lockWithPartition = (table: Partitioned, name: string) =>
  `LOCK TABLE ONLY "${table.name}", "${name}" IN ACCESS EXCLUSIVE MODE`;

/** Whether partition `name` holds a row of [from, to) (SQL literals). */
export const holdsRange = (table: Partitioned, name: string, from: string, to: string) =>
  `SELECT 1 FROM "${name}" WHERE "${table.key}" >= ${from}
         AND "${table.key}" < ${to} LIMIT 1`;

/** Rows of `table`'s partition `r` older than `horizon` (ms): a condition. */
export const olderThan = (table: Partitioned, horizon: number) =>
  `r."${table.key}" < ${table.bound(horizon)}`;

/** The events of partition `r` named by $1 (event ids): a condition. */
export const EVENTS_NAMED = `r.event_id = ANY($1::text[])`;

/** Whether partition `name` holds a row where `condition` (over `r`). */
export const anyWhere = (name: string, condition: string) =>
  `SELECT 1 FROM "${name}" r WHERE ${condition} LIMIT 1`;

/** The event ids of events partition `name` where `condition` (over `r`). */
export const eventIdsWhere = (name: string, condition: string) =>
  `SELECT event_id FROM "${name}" r WHERE ${condition}`;

/** Whether the relay still has to fan out an event of events partition `name`. */
export const queuedIn = (name: string) =>
  `SELECT EXISTS (SELECT 1 FROM ${UNDISPATCHED_EVENTS} u JOIN "${name}" e ON e.id = u.id) AS queued`;

/** The ids of the events of partition `name` the relay still has to fan out. */
export const queuedOf = (name: string) =>
  `SELECT e.event_id FROM "${name}" e JOIN ${UNDISPATCHED_EVENTS} u ON u.id = e.id`;

/**
 * Inserts back through `table` the rows of the detached `old` (columns `list`) where `keep` (over `o`):
 * each lands in the partition holding it. Returns how many were not kept.
 */
export const reinsertKept = (table: Partitioned, list: string, old: string, keep: string) =>
  `WITH kept AS (INSERT INTO "${table.name}" (${list}) SELECT ${list} FROM "${old}" o WHERE ${keep} RETURNING 1)
     SELECT (SELECT count(*) FROM "${old}")::int - (SELECT count(*) FROM kept)::int AS dropped`;

/** Rows of a table to archive: read by a unique `key` (of `keyType`), where `where` holds (over `r`). */
export interface ArchivedRows {
  table: string;
  key: string;
  keyType: 'text' | 'bigint';
  where?: string;
}

/** The next `limit` rows after the key parameter `after` (null: from the first), as JSON lines. */
export const archiveBatch = (rows: ArchivedRows, after: string, limit: number) =>
  `SELECT r.${rows.key} AS key, row_to_json(r)::text AS line FROM "${rows.table}" r
         WHERE (${after}::${rows.keyType} IS NULL OR r.${rows.key} > ${after}::${rows.keyType})
           ${rows.where ? `AND ${rows.where}` : ''}
         ORDER BY r.${rows.key} LIMIT ${limit}`;
