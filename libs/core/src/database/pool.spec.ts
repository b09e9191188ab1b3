import { MAX_NAMED_STATEMENTS, prepared } from './pool';

describe('prepared', () => {
  it('names a statement by its text, the same name every time', () => {
    const a = prepared('SELECT 1 AS "pool.spec one"');
    expect(a.name).toMatch(/^wharf_[0-9a-f]{16}$/);
    expect(prepared('SELECT 1 AS "pool.spec one"').name).toBe(a.name);
    expect(prepared('SELECT 2 AS "pool.spec two"').name).not.toBe(a.name);
  });

  it('stops naming new shapes past MAX_NAMED_STATEMENTS, so clients cannot grow every connection at will', () => {
    const kept = prepared('SELECT 1 AS "pool.spec kept"');
    const names = new Set<string | undefined>();
    for (let i = 0; i < MAX_NAMED_STATEMENTS + 10; i++)
      names.add(prepared(`SELECT ${i} AS "pool.spec many"`).name);
    const extra = prepared('SELECT 1 AS "pool.spec past the cap"');
    expect(extra.name).toBeUndefined();
    expect(extra.text).toBe('SELECT 1 AS "pool.spec past the cap"');
    expect(names.has(undefined)).toBe(true);
    // Shapes named before the cap keep their names.
    expect(prepared('SELECT 1 AS "pool.spec kept"').name).toBe(kept.name);
  });
});
