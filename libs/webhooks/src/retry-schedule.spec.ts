import { maxAttempts, retryDelay } from './retry-schedule';

describe('retry schedule', () => {
  const schedule = [5_000, 300_000, 1_800_000];

  it('follows the schedule with ±20 % jitter', () => {
    expect(retryDelay(schedule, 1, undefined, () => 0)).toBe(4_000);
    expect(retryDelay(schedule, 1, undefined, () => 1)).toBe(6_000);
    expect(retryDelay(schedule, 2, undefined, () => 0.5)).toBe(300_000);
    expect(retryDelay(schedule, 9, undefined, () => 0.5)).toBe(1_800_000);
  });

  it('honours Retry-After clamped between this step and the next', () => {
    expect(retryDelay(schedule, 1, 60_000)).toBe(60_000);
    expect(retryDelay(schedule, 1, 1_000)).toBe(5_000);
    expect(retryDelay(schedule, 1, 86_400_000)).toBe(300_000);
  });

  it('allows one immediate attempt plus one per step', () => {
    expect(maxAttempts(schedule)).toBe(4);
  });
});
