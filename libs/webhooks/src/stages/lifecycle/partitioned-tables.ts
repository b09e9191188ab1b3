import { eventIdAt, eventIdTime } from '../../outbox/event-id';
import { EVENTS_TABLE, REQUEST_LOGS_TABLE } from '../../store/tables';

/**
 * The two tables kept in time partitions, and how a time becomes a bound of each. An event's id begins with
 * its creation time (see outbox/event-id.ts: `evt_` and the milliseconds in base 36), so a range of ids
 * is a range of creation times: partitioned on it, event_id stays unique across partitions (a unique index
 * must hold the partition key) and every look-up by event id reads one partition. A request-log row's is
 * the time its attempt was sent.
 */
export interface PartitionedTable {
  name: typeof EVENTS_TABLE | typeof REQUEST_LOGS_TABLE;
  key: 'event_id' | 'sent_at';
  /** The SQL literal of the bound at `ms`. */
  bound(ms: number): string;
  /** The time of a bound as pg_get_expr prints it, quotes removed (the session in UTC). */
  time(value: string): number;
}

export const EVENTS: PartitionedTable = {
  name: EVENTS_TABLE,
  key: 'event_id',
  bound: (ms) => `'${eventIdAt(ms)}'`,
  time: eventIdTime,
};

export const REQUEST_LOGS: PartitionedTable = {
  name: REQUEST_LOGS_TABLE,
  key: 'sent_at',
  bound: (ms) => `'${new Date(ms).toISOString()}'`,
  // `2025-01-02 03:04:05+00` (UTC session): ISO once the space is a T and the offset has minutes.
  time: (value) => Date.parse(value.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00')),
};

export const PARTITIONED_TABLES = [EVENTS, REQUEST_LOGS];

/** A partition's name: its table and the UTC second its range starts at (`webhook_events_p20250102t030405`). */
export function partitionName(table: PartitionedTable, fromMs: number): string {
  const stamp = new Date(fromMs).toISOString().slice(0, 19).replace(/[-:]/g, '').toLowerCase();
  return `${table.name}_p${stamp}`;
}

/** The default partition: rows no range holds land here instead of failing. */
export const defaultPartition = (table: PartitionedTable) => `${table.name}_default`;

/** A partition's range in ms since the epoch; an open end is ±Infinity. */
export interface Range {
  from: number;
  to: number;
}

/**
 * The ranges to create so that partitions cover `now` to `now + ahead` (ms): from the end of the newest
 * partition, or the start of the current interval when that is later (a gap in the past stays a gap), in
 * steps ending on multiples of `interval` since the epoch (so a changed interval lines up after one step).
 */
export function rangesToCreate(existing: Range[], now: number, interval: number, ahead: number): Range[] {
  const current = Math.floor(now / interval) * interval;
  const newest = Math.max(-Infinity, ...existing.map((range) => range.to));
  const ranges: Range[] = [];
  for (let from = Math.max(newest, current); from < now + ahead;) {
    const to = (Math.floor(from / interval) + 1) * interval;
    ranges.push({ from, to });
    from = to;
  }
  return ranges;
}

/** Parses `FOR VALUES FROM (…) TO (…)` of a range partition. */
export function parseRange(table: PartitionedTable, expression: string): Range | undefined {
  const match = /FROM \((.+)\) TO \((.+)\)/.exec(expression);
  if (!match) return undefined;
  const side = (text: string, open: number) =>
    /^(MINVALUE|MAXVALUE)$/.test(text) ? open : table.time(text.replace(/^'|'$/g, ''));
  return { from: side(match[1], -Infinity), to: side(match[2], Infinity) };
}
