/**
 * The tables delivery rewrites all day: a delivery row is inserted, updated and deleted for every message, an
 * outbox queue row inserted and deleted, an endpoint's health updated by the record. Their dead rows and
 * statistics are kept in hand by the worker (stages/lifecycle/table-upkeep.ts), not left to autovacuum alone.
 */
export const CHURN_TABLES = [
  'webhook_deliveries',
  'webhook_events_undispatched',
  'webhook_endpoints',
] as const;
export type ChurnTable = (typeof CHURN_TABLES)[number];

export interface ChurnStats {
  table: ChurnTable;
  live: number;
  dead: number;
  modified: number;
  never_analyzed: boolean;
}

/** What upkeep decides on: live and dead rows, and the changes since statistics were last gathered. */
export const CHURN_STATS = `
SELECT relname AS "table", n_live_tup::float8 AS live, n_dead_tup::float8 AS dead,
  n_mod_since_analyze::float8 AS modified, coalesce(last_analyze, last_autoanalyze) IS NULL AS never_analyzed
FROM pg_stat_user_tables
WHERE relid = ANY($1::regclass[])`;

/** SKIP_LOCKED: another worker's VACUUM of the same table is enough; this one goes on. */
export const vacuumStatement = (table: ChurnTable, vacuum: boolean) =>
  vacuum ? `VACUUM (ANALYZE, SKIP_LOCKED) ${table}` : `ANALYZE (SKIP_LOCKED) ${table}`;
