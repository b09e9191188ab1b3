/** PostgreSQL's serialization_failure and deadlock_detected: SQLSTATEs of a transaction that lost a race. */
const LOST_RACE = new Set(['40001', '40P01']);

/**
 * Whether `error` is PostgreSQL rolling back a transaction that lost a race with another (a deadlock's
 * victim, a serialization failure): nothing of it was written, and the same work may simply run again.
 */
export function lostRace(error: unknown): boolean {
  return LOST_RACE.has((error as { code?: string } | null)?.code ?? '');
}
