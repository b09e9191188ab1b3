import { PrimaryPositions } from './replica-lag';
import { WriteMarks, parseLsn } from './write-marks';

describe('parseLsn', () => {
  it('orders WAL positions as PostgreSQL prints them', () => {
    expect(parseLsn('0/16B3748')).toBe(0x16b3748n);
    expect(parseLsn('16/B374D848')).toBe((0x16n << 32n) | 0xb374d848n);
    expect(parseLsn('1/0') > parseLsn('0/FFFFFFFF')).toBe(true);
  });
});

describe('WriteMarks', () => {
  it('a caller that has not written needs nothing; one that has, nothing known until a later sample', () => {
    const marks = new WriteMarks();
    expect(marks.needed('k:a')).toBe(0n);
    expect(marks.needed(undefined)).toBe(0n);
    marks.wrote('k:a', 3);
    expect(marks.needed('k:a')).toBeUndefined();
    expect(marks.needed('k:b')).toBe(0n);
    // Sample 3 started before the write committed: its position may be short of the commit.
    marks.settle(3, 100n);
    expect(marks.needed('k:a')).toBeUndefined();
    marks.settle(4, 120n);
    expect(marks.needed('k:a')).toBe(120n);
    // Settled once: later samples do not raise what the caller needs.
    marks.settle(5, 500n);
    expect(marks.needed('k:a')).toBe(120n);
  });

  it('a later write of the same caller replaces its mark', () => {
    const marks = new WriteMarks();
    marks.wrote('k:a', 1);
    marks.settle(2, 50n);
    marks.wrote('k:a', 2);
    expect(marks.needed('k:a')).toBeUndefined();
    marks.settle(3, 80n);
    expect(marks.needed('k:a')).toBe(80n);
  });

  it('forgets marks every replica has replayed, oldest first', () => {
    const marks = new WriteMarks();
    marks.wrote('k:a', 1);
    marks.wrote('k:b', 1);
    marks.settle(2, 50n);
    marks.wrote('k:c', 2);
    marks.settle(3, 90n);
    marks.forgetReplayed(60n);
    expect(marks.size).toBe(1);
    expect(marks.needed('k:c')).toBe(90n);
    marks.forgetReplayed(90n);
    expect(marks.size).toBe(0);
  });

  it('past its bound, a dropped mark becomes a floor every caller needs', () => {
    const marks = new WriteMarks(2);
    marks.wrote('k:a', 1);
    marks.settle(2, 40n);
    marks.wrote('k:b', 2);
    marks.wrote('k:c', 2);
    expect(marks.size).toBe(2);
    // k:a's settled position now binds every caller, k:a included.
    expect(marks.needed('k:a')).toBe(40n);
    expect(marks.needed('k:z')).toBe(40n);
    // Dropping a mark not settled yet sends every caller to the primary until it is.
    marks.wrote('k:d', 2);
    expect(marks.needed('k:z')).toBeUndefined();
    marks.settle(3, 70n);
    expect(marks.needed('k:z')).toBe(70n);
    expect(marks.needed('k:d')).toBe(70n);
  });
});

describe('PrimaryPositions', () => {
  it('a replica is as far behind as the oldest primary position it has not replayed', () => {
    const positions = new PrimaryPositions(10_000);
    expect(positions.lagMs(0n, 0)).toBe(Infinity);
    positions.add(1000, 100n);
    positions.add(1100, 100n);
    positions.add(1200, 150n);
    positions.add(1300, 180n);
    expect(positions.lagMs(180n, 1300)).toBe(0);
    expect(positions.lagMs(200n, 1300)).toBe(0);
    expect(positions.lagMs(160n, 1300)).toBe(100);
    expect(positions.lagMs(100n, 1300)).toBe(200);
    expect(positions.lagMs(99n, 1300)).toBe(10_000);
  });

  it('an idle primary leaves a replica that has replayed everything 0 behind, however long', () => {
    const positions = new PrimaryPositions(1000);
    for (let at = 0; at <= 60_000; at += 100) positions.add(at, 500n);
    expect(positions.lagMs(500n, 60_000)).toBe(0);
    expect(positions.lagMs(499n, 60_000)).toBe(1000);
  });
});
