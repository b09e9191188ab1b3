import { setTimeout as sleep } from 'node:timers/promises';
import {
  PARTITION_LOCK_ATTEMPTS,
  PARTITION_LOCK_PAUSE_MS,
  PARTITION_LOCK_TIMEOUT_MS,
  PARTITIONS_AHEAD,
} from '../../tuning';
import { partitionStore } from '../../store/partitions.store';
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
  return (await partitionStore.bounds(db, table))
    .filter((row) => row.bound !== 'DEFAULT')
    .map((row) => {
      const range = parseRange(table, row.bound);
      if (!range) throw new Error(`${table.name}: unexpected partition bound ${row.bound}`);
      return { name: row.name, ...range };
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
  await partitionStore.createAttached(db, table, name, forValues(table, range));
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
    await partitionStore.createDefault(db, table, defaultPartition(table));
  }
  return created;
}

/** createPartition; when the default partition holds rows of the range, they are moved into it first. */
async function createPartitionMovingDefault(db: Db, table: PartitionedTable, range: Range) {
  const name = defaultPartition(table);
  if (await partitionStore.exists(db, name)) {
    const [from, to] = [literal(table, range.from), literal(table, range.to)];
    if (await partitionStore.holdsRange(db, table, name, from, to)) {
      let created = '';
      await rotateDefault(
        db,
        table,
        'true',
        [],
        async () => (created = await createPartition(db, table, range)),
      );
      return created;
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
  await partitionStore.detachAs(db, table, current, old);
  await between();
  await partitionStore.createDefault(db, table, current, true);
  return partitionStore.reinsertAndDrop(db, table, old, keep, params);
}
