import { eventIdAt } from '../../outbox/event-id';
import { DeliveryStore } from '../../store/delivery.store';
import { EVENTS_NAMED, olderThan } from '../../store/partitions.sql';
import { partitionStore } from '../../store/partitions.store';
import { archiveRows } from './partition-archive';
import { EVENTS, PartitionedTable, defaultPartition } from './partitioned-tables';
import { Db, Partition, inLockedTransaction, listPartitions, rotateDefault } from './partitions';

export interface RetentionOptions {
  store: DeliveryStore;
  /** WEBHOOKS_ARCHIVE_DIR: each partition is archived there before it is dropped. */
  archiveDir?: string;
  /** Told of each partition dropped, and how long its table was locked (ms). */
  onDrop?: (partition: string, lockedMs: number) => void;
}

const ARCHIVE_KEY = (table: PartitionedTable) =>
  table === EVENTS
    ? { key: 'event_id', keyType: 'text' as const }
    : { key: 'id', keyType: 'bigint' as const };

/**
 * Drops the partitions of `table` whose every row is older than `horizon` (ms), and the rows of its default
 * partition older than it (see rotateDefault); never a DELETE on the table. An events partition is kept
 * while the relay has not fanned out one of its events or a pending delivery refers to one; its failed
 * deliveries go with it (recover can only requeue what has its event). Returns about how many rows went.
 */
export async function applyRetention(
  db: Db,
  table: PartitionedTable,
  horizon: number,
  options: RetentionOptions,
): Promise<number> {
  let dropped = 0;
  for (const partition of await listPartitions(db, table)) {
    if (partition.to > horizon) break;
    if (await stillNeeded(db, table, partition, options.store)) continue;
    if (options.archiveDir)
      await archiveRows(db, options.archiveDir, partition.name, {
        table: partition.name,
        ...ARCHIVE_KEY(table),
      });
    let locked = 0;
    const rows = await inLockedTransaction(db, false, async () => {
      // From here no resend can read an event of it; checked again under the lock. The parent first, as
      // every reader locks them (and DETACH needs it): the partition alone first deadlocked with them.
      await partitionStore.lockWithPartition(db, table, partition.name);
      locked = performance.now();
      if (await stillNeeded(db, table, partition, options.store)) return undefined;
      if (table === EVENTS)
        await options.store.dropFailedInEventRange(db, fromBound(partition), eventIdAt(partition.to));
      const rows = await partitionStore.rowEstimate(db, partition.name);
      await partitionStore.drop(db, table, partition.name);
      return rows;
    });
    if (rows === undefined) continue;
    dropped += rows;
    options.onDrop?.(partition.name, performance.now() - locked);
  }
  return dropped + (await dropOldDefaultRows(db, table, horizon, options));
}

const fromBound = (partition: Partition) => (partition.from === -Infinity ? null : eventIdAt(partition.from));

async function stillNeeded(db: Db, table: PartitionedTable, partition: Partition, store: DeliveryStore) {
  if (table !== EVENTS) return false;
  return (
    (await partitionStore.queuedIn(db, partition.name)) ||
    (await store.pendingInEventRange(db, fromBound(partition), eventIdAt(partition.to)))
  );
}

/**
 * The default partition holds rows no range covered when they were written (no worker or migrate ran for
 * longer than the partitions ahead, or an id not made by newEventId). Those older than the horizon go by
 * replacing it (rotateDefault), unless still needed as above.
 */
async function dropOldDefaultRows(
  db: Db,
  table: PartitionedTable,
  horizon: number,
  options: RetentionOptions,
) {
  const name = defaultPartition(table);
  const old = olderThan(table, horizon);
  if (!(await partitionStore.anyWhere(db, name, old))) return 0;
  return inLockedTransaction(db, false, async () => {
    await partitionStore.lockWithPartition(db, table, name);
    let going = old;
    const params: unknown[] = [];
    if (table === EVENTS) {
      const ids = await partitionStore.eventIdsWhere(db, name, old);
      const needed = new Set([
        ...(await options.store.pendingEventsOf(db, ids)),
        ...(await partitionStore.queuedOf(db, name)),
      ]);
      params.push(ids.filter((id) => !needed.has(id)));
      if (!(params[0] as string[]).length) return 0;
      going = EVENTS_NAMED;
      await options.store.dropFailedOfEvents(db, params[0] as string[]);
    }
    if (options.archiveDir)
      await archiveRows(db, options.archiveDir, `${name}_${Date.now()}`, {
        table: name,
        ...ARCHIVE_KEY(table),
        where: going,
        params,
      });
    return rotateDefault(db, table, `NOT (${going.replace(/\br\./g, 'o.')})`, params);
  });
}
