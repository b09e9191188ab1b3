import { ChurnStats } from '../../store/upkeep.sql';
import { upkeepOf } from './table-upkeep';

const stats = (over: Partial<ChurnStats>): ChurnStats => ({
  table: 'webhook_deliveries',
  live: 100,
  dead: 0,
  modified: 0,
  never_analyzed: false,
  ...over,
});
const limits = { minDeadRows: 1000, minModifiedRows: 1000 };

describe('upkeepOf', () => {
  it('vacuums a table whose dead rows pass the minimum and a share of its live ones', () => {
    expect(upkeepOf([stats({ dead: 1000 })], limits)).toEqual([
      { table: 'webhook_deliveries', work: 'vacuum' },
    ]);
    expect(upkeepOf([stats({ dead: 999 })], limits)).toEqual([]);
    // Many live rows: the same dead rows are a small share, left to the next round.
    expect(upkeepOf([stats({ dead: 1000, live: 100_000 })], limits)).toEqual([]);
  });

  it('analyzes a table never analyzed once it changed, or one changed past the limits', () => {
    expect(upkeepOf([stats({ never_analyzed: true, modified: 1 })], limits)).toEqual([
      { table: 'webhook_deliveries', work: 'analyze' },
    ]);
    expect(upkeepOf([stats({ never_analyzed: true, modified: 0 })], limits)).toEqual([]);
    expect(upkeepOf([stats({ modified: 1000 })], limits)).toEqual([
      { table: 'webhook_deliveries', work: 'analyze' },
    ]);
    expect(upkeepOf([stats({ modified: 1000, live: 100_000 })], limits)).toEqual([]);
  });
});
