import { forgetOld, parseNotice } from './activity-notice';

describe('parseNotice', () => {
  it('reads a batch of log rows: its first sent_at and its companies, or all of them', () => {
    expect(parseNotice('l|1700000000123|a,b')).toEqual({
      kind: 'logs',
      since: 1700000000123,
      companies: ['a', 'b'],
    });
    expect(parseNotice('l|5|*')).toEqual({ kind: 'logs', since: 5, companies: '*' });
  });

  it('reads an endpoint change whose JSON may hold the separator', () => {
    expect(parseNotice('e|c1|{"throttled_reason":"a|b"}')).toEqual({
      kind: 'endpoint',
      company: 'c1',
      json: '{"throttled_reason":"a|b"}',
    });
  });

  it('ignores what is not one of its notices', () => {
    for (const payload of ['', 'l', 'l|x|a', 'x|1|a', 'l1|a', 'e|c1'])
      expect(parseNotice(payload)).toBeUndefined();
  });
});

describe('forgetOld', () => {
  it('keeps a small set whole and drops old rows from a large one', () => {
    const small = new Map([['a', 1]]);
    forgetOld(small, 10);
    expect([...small.keys()]).toEqual(['a']);
    const large = new Map(Array.from({ length: 1000 }, (_, i) => [`r${i}`, i] as [string, number]));
    forgetOld(large, 990);
    expect(large.size).toBe(10);
  });
});
