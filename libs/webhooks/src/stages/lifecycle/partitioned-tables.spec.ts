import { eventIdAt, newEventId } from '../../outbox/event-id';
import { EVENTS, REQUEST_LOGS, parseRange, partitionName, rangesToCreate } from './partitioned-tables';

const DAY = 86_400_000;

describe('partitioned tables', () => {
  it('an event id made now falls between the bounds of the current and the next millisecond', () => {
    const before = Date.now();
    const id = newEventId();
    const after = Date.now() + 1;
    expect(id >= eventIdAt(before)).toBe(true);
    expect(id < eventIdAt(after)).toBe(true);
  });

  it('reads back the time of each bound', () => {
    const at = Date.UTC(2025, 0, 2, 3, 4, 5);
    expect(EVENTS.time(eventIdAt(at))).toBe(at);
    expect(REQUEST_LOGS.time('2025-01-02 03:04:05+00')).toBe(at);
    expect(parseRange(EVENTS, `FOR VALUES FROM (MINVALUE) TO (${EVENTS.bound(at)})`)).toEqual({
      from: -Infinity,
      to: at,
    });
    expect(partitionName(REQUEST_LOGS, at)).toBe('webhook_request_logs_p20250102t030405');
  });

  it('creates aligned ranges from the newest partition (or now) to the horizon ahead', () => {
    const now = Date.UTC(2025, 0, 2, 12);
    const today = Date.UTC(2025, 0, 2);
    expect(rangesToCreate([], now, DAY, 2 * DAY)).toEqual([
      { from: today, to: today + DAY },
      { from: today + DAY, to: today + 2 * DAY },
      { from: today + 2 * DAY, to: today + 3 * DAY },
    ]);
    expect(rangesToCreate([{ from: -Infinity, to: today + 3 * DAY }], now, DAY, 2 * DAY)).toEqual([]);
    // An interval changed to an hour: the next range ends on the hour after the newest partition's end.
    const odd = today + DAY + 30 * 60_000;
    expect(rangesToCreate([{ from: today, to: odd }], now, 3_600_000, 0)).toEqual([]);
    expect(rangesToCreate([{ from: today, to: odd }], odd, 3_600_000, 1)[0]).toEqual({
      from: odd,
      to: odd + 30 * 60_000,
    });
  });
});
