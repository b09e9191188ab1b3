import { setTimeout as sleep } from 'node:timers/promises';
import {
  PARTITION_LOCK_ATTEMPTS,
  PARTITION_LOCK_PAUSE_MS,
  PARTITION_LOCK_TIMEOUT_MS,
  PARTITIONS_AHEAD,
} from '../../tuning';
import {
  PARTITIONED_TABLES,
  PartitionedTable,
  Range,
  defaultPartition,
  parseRange,
  partitionName,
  rangesToCreate,
} from './partitioned-tables';

/** One connection: a pg client, or a migration's query runner adapted to it. */
export interface Db {
  query(text: string, params?: unknown[]): Promise<{ rows: any[] }>;
}

export interface Partition extends Range {
  name: string;
}

/** The table's range partitions (not its default), oldest first. */
export async function listPartitions(db: Db, table: PartitionedTable): Promise<Partition[]> {
  const { rows } = await db.query(
    `SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
     FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = $1::regclass`,
    [table.name],
  );
  return rows
    .filter((row) => row.bound !== 'DEFAULT')
    .map((row) => {
      const range = parseRange(table, row.bound as string);
      if (!range) throw new Error(`${table.name}: unexpected partition bound ${row.bound}`);
      return { name: row.name as string, ...range };
    })
    .sort((a, b) => a.from - b.from);
}

const literal = (table: PartitionedTable, ms: number) =>
  ms === -Infinity ? 'MINVALUE' : ms === Infinity ? 'MAXVALUE' : table.bound(ms);

/** `FOR VALUES FROM (…) TO (…)` of a range. */
export const forValues = (table: PartitionedTable, range: Range) =>
  `FOR VALUES FROM (${literal(table, range.from)}) TO (${literal(table, range.to)})`;

const LOCK_NOT_AVAILABLE = '55P03';

/**
 * Runs `work` in a transaction whose locks are waited for at most PARTITION_LOCK_TIMEOUT_MS, and again from
 * the start while a lock times out, up to PARTITION_LOCK_ATTEMPTS times; unless `db` is already in one (a
 * migration's), where it runs once.
 */
export async function inLockedTransaction<T>(db: Db, inTransaction: boolean, work: () => Promise<T>) {
  if (inTransaction) return work();
  for (let attempt = 1; ; attempt++) {
    await db.query('BEGIN');
    try {
      await db.query(`SET LOCAL lock_timeout = ${PARTITION_LOCK_TIMEOUT_MS}`);
      const result = await work();
      await db.query('COMMIT');
      return result;
    } catch (error) {
      await db.query('ROLLBACK');
      if ((error as { code?: string }).code !== LOCK_NOT_AVAILABLE || attempt >= PARTITION_LOCK_ATTEMPTS)
        throw error;
    }
    await sleep(PARTITION_LOCK_PAUSE_MS * (0.5 + Math.random()));
  }
}

/**
 * Creates the partition of `range`: an empty table attached to its parent, which locks the parent only
 * against other schema changes (CREATE TABLE … PARTITION OF would block its readers and writers). Rows the
 * default partition holds in the range move into it (see rotateDefault).
 */
async function createPartition(db: Db, table: PartitionedTable, range: Range): Promise<string> {
  const name = partitionName(table, range.from);
  await db.query(
    `CREATE TABLE IF NOT EXISTS "${name}" (LIKE "${table.name}" INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`,
  );
  await db.query(`ALTER TABLE "${table.name}" ATTACH PARTITION "${name}" ${forValues(table, range)}`);
  return name;
}

/**
 * Makes sure both tables have partitions from now to PARTITIONS_AHEAD intervals ahead, and a default
 * partition; returns the names created. `inTransaction`: `db` is a migration's, already in a transaction.
 */
export async function ensurePartitions(
  db: Db,
  intervalMs: number,
  { now = Date.now(), inTransaction = false } = {},
): Promise<string[]> {
  const created: string[] = [];
  for (const table of PARTITIONED_TABLES) {
    const ranges = rangesToCreate(
      await listPartitions(db, table),
      now,
      intervalMs,
      PARTITIONS_AHEAD * intervalMs,
    );
    for (const range of ranges) {
      created.push(
        await inLockedTransaction(db, inTransaction, () => createPartitionMovingDefault(db, table, range)),
      );
    }
    await db.query(
      `CREATE TABLE IF NOT EXISTS "${defaultPartition(table)}" PARTITION OF "${table.name}" DEFAULT`,
    );
  }
  return created;
}

/** createPartition; when the default partition holds rows of the range, they are moved into it first. */
async function createPartitionMovingDefault(db: Db, table: PartitionedTable, range: Range) {
  const { rows } = await db.query(`SELECT to_regclass($1) IS NOT NULL AS present`, [defaultPartition(table)]);
  if (rows[0].present) {
    const { rows: held } = await db.query(
      `SELECT 1 FROM "${defaultPartition(table)}" WHERE "${table.key}" >= ${literal(table, range.from)}
         AND "${table.key}" < ${literal(table, range.to)} LIMIT 1`,
    );
    if (held.length) {
      let name = '';
      await rotateDefault(
        db,
        table,
        'true',
        [],
        async () => (name = await createPartition(db, table, range)),
      );
      return name;
    }
  }
  return createPartition(db, table, range);
}

/**
 * Replaces the default partition with an empty one and inserts back, through the parent, the rows of the
 * old one that `keep` (an SQL condition over its columns) holds: a row that a range now covers lands in
 * its partition, the rest in the new default, and the old table with whatever was not kept is dropped.
 * No DELETE: rows leave the default partition only with the table. `between` runs while it is detached.
 * Returns how many rows were dropped.
 */
export async function rotateDefault(
  db: Db,
  table: PartitionedTable,
  keep: string,
  params: unknown[] = [],
  between: () => Promise<unknown> = async () => undefined,
): Promise<number> {
  const current = defaultPartition(table);
  const old = `${current}_rotated`;
  const { rows: columns } = await db.query(
    `SELECT string_agg(quote_ident(attname), ', ' ORDER BY attnum) AS list FROM pg_attribute
     WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped`,
    [table.name],
  );
  const list = columns[0].list as string;
  await db.query(`ALTER TABLE "${table.name}" DETACH PARTITION "${current}"`);
  await db.query(`ALTER TABLE "${current}" RENAME TO "${old}"`);
  await between();
  await db.query(`CREATE TABLE "${current}" PARTITION OF "${table.name}" DEFAULT`);
  const { rows } = await db.query(
    `WITH kept AS (INSERT INTO "${table.name}" (${list}) SELECT ${list} FROM "${old}" o WHERE ${keep} RETURNING 1)
     SELECT (SELECT count(*) FROM "${old}")::int - (SELECT count(*) FROM kept)::int AS dropped`,
    params,
  );
  await db.query(`DROP TABLE "${old}"`);
  return rows[0].dropped as number;
}
