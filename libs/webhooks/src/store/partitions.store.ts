import { InTransaction as Db } from './delivery.store';
import * as sql from './partitions.sql';
import { ArchivedRows, Partitioned } from './partitions.sql';

/**
 * The partitioned tables' upkeep, one statement per function (partitions.sql.ts), on the caller's
 * connection: stages/lifecycle/partitions.ts and retention.ts put them together, in their transactions.
 */
export const partitionStore = {
  /** The table's partitions (default included) with their bounds as pg_get_expr prints them. */
  async bounds(db: Db, table: Partitioned): Promise<{ name: string; bound: string }[]> {
    return (await db.query(sql.PARTITION_BOUNDS, [table.name])).rows;
  },

  /** Creates `name` empty and attaches it as the partition of `forValues` (see partitions.ts). */
  async createAttached(db: Db, table: Partitioned, name: string, forValues: string): Promise<void> {
    await db.query(sql.createDetached(table, name));
    await db.query(sql.attachPartition(table, name, forValues));
  },

  async createDefault(db: Db, table: Partitioned, name: string, replacing = false): Promise<void> {
    await db.query(sql.createDefault(table, name, replacing));
  },

  async exists(db: Db, name: string): Promise<boolean> {
    return (await db.query(sql.TABLE_EXISTS, [name])).rows[0].present;
  },

  async holdsRange(db: Db, table: Partitioned, name: string, from: string, to: string): Promise<boolean> {
    return (await db.query(sql.holdsRange(table, name, from, to))).rows.length > 0;
  },

  async anyWhere(db: Db, name: string, condition: string): Promise<boolean> {
    return (await db.query(sql.anyWhere(name, condition))).rows.length > 0;
  },

  async eventIdsWhere(db: Db, name: string, condition: string): Promise<string[]> {
    return (await db.query(sql.eventIdsWhere(name, condition))).rows.map((row) => row.event_id as string);
  },

  async queuedIn(db: Db, name: string): Promise<boolean> {
    return (await db.query(sql.queuedIn(name))).rows[0].queued;
  },

  async queuedOf(db: Db, name: string): Promise<string[]> {
    return (await db.query(sql.queuedOf(name))).rows.map((row) => row.event_id as string);
  },

  async lockWithPartition(db: Db, table: Partitioned, name: string): Promise<void> {
    await db.query(sql.lockWithPartition(table, name));
  },

  async rowEstimate(db: Db, name: string): Promise<number> {
    return Number((await db.query(sql.ROW_ESTIMATE, [name])).rows[0].n);
  },

  /** Detaches partition `name` and drops it. */
  async drop(db: Db, table: Partitioned, name: string): Promise<void> {
    await db.query(sql.detachPartition(table, name));
    await db.query(sql.dropTable(name));
  },

  /** Detaches partition `name` and renames it `to`. */
  async detachAs(db: Db, table: Partitioned, name: string, to: string): Promise<void> {
    await db.query(sql.detachPartition(table, name));
    await db.query(sql.renameTable(name, to));
  },

  /** Inserts back through `table` the rows of `old` where `keep`, then drops `old`; returns how many went. */
  async reinsertAndDrop(db: Db, table: Partitioned, old: string, keep: string, params: unknown[]) {
    const { rows: columns } = await db.query(sql.COLUMN_LIST, [table.name]);
    const { rows } = await db.query(sql.reinsertKept(table, columns[0].list as string, old, keep), params);
    await db.query(sql.dropTable(old));
    return rows[0].dropped as number;
  },

  /** The next `limit` rows after `last` (null: from the first) as JSON lines, and the last one's key. */
  async archiveBatch(db: Db, rows: ArchivedRows, params: unknown[], last: unknown, limit: number) {
    const batch = sql.archiveBatch(rows, `$${params.length + 1}`, limit);
    return (await db.query(batch, [...params, last])).rows as { key: unknown; line: string }[];
  },
};
