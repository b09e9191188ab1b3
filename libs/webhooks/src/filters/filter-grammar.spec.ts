import { FilterError, clausesOf, compileFilter } from './filter-grammar';

function refusal(filter: unknown): { pointer: string; message: string } {
  try {
    compileFilter(filter);
  } catch (error) {
    if (error instanceof FilterError) return { pointer: error.pointer, message: error.message };
    throw error;
  }
  throw new Error('accepted');
}

describe('payload filter grammar', () => {
  it('compiles every operator into one path whose values are variables only', () => {
    const compiled = compileFilter({
      'data.status': { $in: ['completed', 'can\'celed"'] },
      'data.capacity': { $gte: 100, $lt: 1000 },
      event: { $prefix: 'order.' },
      $or: [{ 'data.note': { $contains: 'x"y' } }, { 'data.additionalData.changes': { $exists: true } }],
      $not: { 'data.kind': 'internal' },
      'data.tag': { $ne: null, $nin: [1, 2] },
    })!;
    expect(compiled.vars).toEqual({
      v0: ['completed', 'can\'celed"'],
      v1: 100,
      v2: 1000,
      v3: 'order.',
      v4: 'x"y',
      v5: 'internal',
      v6: null,
      v7: [1, 2],
    });
    // No value is written into the path but $contains' pattern, as a quoted jsonpath string literal.
    expect(compiled.root.path).not.toContain('completed');
    expect(compiled.root.path).toContain('like_regex "x\\"y" flag "q"');
    expect(clausesOf(compiled.root).map((c) => c.pointer)).toContain('/data.status/$in');
  });

  it('an empty filter filters nothing; a bare value means $eq', () => {
    expect(compileFilter({})).toBeUndefined();
    expect(compileFilter(null)).toBeUndefined();
    expect(compileFilter({ 'data.status': 'completed' })!.root).toMatchObject({
      pointer: '/data.status',
      path: 'exists($."data"."status" ? (@ == $v0))',
    });
  });

  it.each([
    [{ 'data.status': { $inn: ['a'] } }, '/data.status/$inn', /Unknown operator "\$inn"/],
    [{ $where: 'x' }, '/$where', /Unknown operator/],
    [{ 'payload.status': 1 }, '/payload.status', /not a path/],
    [{ 'data.a b': 1 }, '/data.a b', /not a path/],
    [{ 'event.x': 1 }, '/event.x', /not a path/],
    [
      { 'data.x': { $in: 'a' } },
      '/data.x/$in',
      /^\$in takes an array of strings, numbers, booleans or null, not a string\.$/,
    ],
    [{ 'data.x': { $nin: [] } }, '/data.x/$nin', /^\$nin takes an array .*, not an empty one\.$/],
    [{ 'data.x': { $in: [1, 'a', [2]] } }, '/data.x/$in/2', /; this value is an array\.$/],
    [{ 'data.x': { $gt: true } }, '/data.x/$gt', /^\$gt takes a number or a string, not a boolean\.$/],
    [{ 'data.x': { $exists: 1 } }, '/data.x/$exists', /true or false/],
    [{ 'data.x': ['a'] }, '/data.x', /use \$in/],
    [{ 'data.x': {} }, '/data.x', /at least one operator/],
    [{ $or: [] }, '/$or', /1 to 100/],
    [{ $or: [{ 'data.a': 1 }, { 'data/b': 1 }] }, '/$or/1/data~1b', /not a path/],
    [{ $not: 'x' }, '/$not', /JSON object/],
  ])('refuses %j at %s', (filter, pointer, message) => {
    const error = refusal(filter);
    expect(error.pointer).toBe(pointer);
    expect(error.message).toMatch(message);
  });

  it('$in and $nin take as many values as 4 KiB of filter holds, not a count of their own', () => {
    const references = Array.from({ length: 215 }, (_, i) => `ref-${i}`);
    expect(compileFilter({ 'data.reference': { $in: references } })?.vars).toEqual({ v0: references });
    expect(compileFilter({ 'data.n': { $nin: Array(2000).fill(0) } })?.vars.v0).toHaveLength(2000);
    expect(refusal({ 'data.n': { $nin: Array(2100).fill(0) } })).toEqual({
      pointer: '',
      message: expect.stringMatching(/^A filter is at most 4096 bytes of JSON; this one is 42\d\d\.$/),
    });
    // $and and $or keep a count: each filter in them is a clause of its own.
    expect(refusal({ $or: Array(101).fill({ event: 'a' }) })).toEqual({
      pointer: '/$or',
      message: '$or takes at most 100 filters, got 101.',
    });
  });

  it('refuses a filter over 4 KiB, and nesting deeper than 8', () => {
    expect(refusal({ 'data.x': { $in: Array(90).fill('x'.repeat(50)) } })).toMatchObject({
      pointer: '',
      message: expect.stringMatching(/at most 4096 bytes/),
    });
    let deep: Record<string, unknown> = { 'data.a': 1 };
    for (let i = 0; i < 10; i++) deep = { $not: deep };
    expect(refusal(deep).message).toMatch(/at most 8 levels/);
  });

  it('refuses strings PostgreSQL cannot store (NUL, a lone surrogate) at their pointer, whatever the operator', () => {
    for (const bad of ['a\u0000b', 'x\ud800'])
      for (const [filter, pointer] of [
        [{ 'data.name': bad }, '/data.name'],
        [{ 'data.name': { $contains: bad } }, '/data.name/$contains'],
        [{ 'data.name': { $prefix: bad } }, '/data.name/$prefix'],
        [{ 'data.name': { $gt: bad } }, '/data.name/$gt'],
        [{ 'data.name': { $in: ['ok', bad] } }, '/data.name/$in/1'],
      ] as const)
        expect(refusal(filter)).toEqual({
          pointer,
          message: expect.stringMatching(/NUL or a lone surrogate|takes/),
        });
    // Surrogate pairs (emoji) are whole characters: accepted.
    expect(compileFilter({ 'data.name': { $contains: '🚚' } })?.vars).toEqual({ v0: '🚚' });
  });
});
