/**
 * Delay before the attempt after `attempt` (1-based): the schedule's step with ±20 % jitter. A
 * Retry-After is honoured but clamped between that step and the next one.
 */
export function retryDelay(
  schedule: number[],
  attempt: number,
  retryAfterMs?: number,
  random = Math.random,
): number {
  const step = schedule[Math.min(attempt - 1, schedule.length - 1)];
  if (retryAfterMs !== undefined) {
    const ceiling = schedule[Math.min(attempt, schedule.length - 1)];
    return Math.min(Math.max(retryAfterMs, step), Math.max(ceiling, step));
  }
  return Math.round(step * (0.8 + 0.4 * random()));
}

/** The first, immediate attempt plus one per step of the schedule. */
export const maxAttempts = (schedule: number[]) => schedule.length + 1;
