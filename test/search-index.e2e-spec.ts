import { SearchQueryOneBody1700000000005 } from '@wharf/core/migrations/1700000000005-search-query-one-body';
import { DataSource } from 'typeorm';
import { createCompany, TestCompany } from './support/accounts';
import { http } from './support/http';
import { startApi, TestApi } from './support/test-app';

/** Each value is lowered by PostgreSQL: the index and the ILIKE must agree on every one of them. */
const VALUES = [
  'Warehouse 1049',
  'WAREHOUSE 10490',
  'Äpfel & Birnen GmbH',
  'äPFEL',
  'İstanbul Liman',
  'Straße 5',
  'STRASSE 5',
  'ﬁsh ﬁnest',
  '100% Cotton_Mill',
  "O'Brien's \\ Yard",
  'tab\there',
  'line\nbreak',
  'ctrl\u0001one\u0002two',
  '東京 倉庫 第一',
  '🚚 depot 🚚🚚',
  'a',
  'ab',
  'abcde',
  'x'.repeat(60) + 'needle' + 'y'.repeat(60),
];
/** Around the 8,000 characters past which a value is indexed as "always a candidate". */
const LONG = [7_995, 8_000, 8_001, 9_999].map((length) => 'n'.repeat(length - 6) + 'Needle');

/**
 * The search index (5-grams of the lowered searchable columns, see SEARCH_GRAM) finds candidates and the
 * ILIKE decides: `query=` answers exactly what `ILIKE '%text%'` over the searchable columns answers, for
 * every kind of value and text, whatever the index makes of them.
 */
describe('search index: the same answers as ILIKE', () => {
  let api: TestApi;
  let acme: TestCompany;
  let dataSource: DataSource;

  beforeAll(async () => {
    // Over a thousand searches, far beyond the per-key rate limit.
    api = await startApi({ env: { RATE_LIMIT_PER_MINUTE: '100000' } });
    acme = await createCompany(api);
    dataSource = api.app.get(DataSource);
    // Two searchable columns: a text is found in either, never across them.
    await dataSource.query(
      `INSERT INTO locations (company_uuid, name, city)
       SELECT $1, v, c FROM unnest($2::text[], $3::text[]) AS x(v, c)`,
      [acme.uuid, VALUES, [...VALUES].reverse()],
    );
    await dataSource.query(
      `INSERT INTO orders (company_uuid, reference, notes)
       SELECT $1, 'R' || i, v FROM unnest($2::text[]) WITH ORDINALITY AS x(v, i)`,
      [acme.uuid, [...LONG, ...VALUES]],
    );
    // Rows enough for the planner to read the search index as in a large company; their grams ("ǫǫǫǫǫ")
    // are in no text searched.
    await dataSource.query(
      `INSERT INTO locations (company_uuid, name) SELECT $1, 'ǫǫǫǫǫǫ' FROM generate_series(1, 20000)`,
      [acme.uuid],
    );
    await dataSource.query(
      `INSERT INTO orders (company_uuid, reference) SELECT $1, 'ǫǫǫǫǫǫ' FROM generate_series(1, 20000)`,
      [acme.uuid],
    );
    await dataSource.query('VACUUM ANALYZE locations, orders');
  }, 60_000);
  afterAll(() => api.close());

  /** Every substring of every value from 1 to 12 characters, a few longer ones, case flipped, and misses. */
  function texts(): string[] {
    const found = new Set<string>();
    for (const value of VALUES) {
      const chars = [...value];
      for (let start = 0; start < chars.length; start += 3)
        for (const length of [1, 2, 4, 5, 6, 9, 12, 55])
          if (start + length <= chars.length) found.add(chars.slice(start, start + length).join(''));
    }
    for (const text of [...found]) found.add(text.toUpperCase());
    for (const text of ['Needle', 'nNeedle', 'needlE', 'e 5', 'se 1049', 'zzzzz', '%', '_', "'", '\\', '%_'])
      found.add(text);
    return [...found];
  }

  async function oracle(table: string, columns: string[], text: string): Promise<string[]> {
    const pattern = `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
    const rows: { uuid: string }[] = await dataSource.query(
      `SELECT uuid FROM ${table} WHERE company_uuid = $1 AND (${columns.map((c) => `${c} ILIKE $2`).join(' OR ')})`,
      [acme.uuid, pattern],
    );
    return rows.map((row) => row.uuid).sort();
  }

  async function searched(path: string, key: string, text: string): Promise<string[]> {
    const res = await http(api.url, 'GET', `${path}?limit=100&query=${encodeURIComponent(text)}`, {
      key: acme.key,
    });
    expect({ text, status: res.status }).toEqual({ text, status: 200 });
    return (res.body[key] as { uuid: string }[]).map((record) => record.uuid).sort();
  }

  it('locations (name, city) and orders (reference, notes up to 10,000 characters)', async () => {
    const all = texts();
    expect(all.length).toBeGreaterThan(300);
    let matched = 0;
    for (const text of all) {
      const expected = await oracle('locations', ['name', 'city'], text);
      expect({ text, found: await searched('/int/v1/locations', 'locations', text) }).toEqual({
        text,
        found: expected,
      });
      const orders = await oracle('orders', ['reference', 'notes'], text);
      expect({ text, found: await searched('/fleet/int/v1/orders', 'orders', text) }).toEqual({
        text,
        found: orders,
      });
      if (expected.length) matched++;
    }
    // Most texts are taken from the values: the comparison is not of empty lists.
    expect(matched).toBeGreaterThan(all.length / 2);
  }, 120_000);

  it('leaving grams out of the query (those most rows hold) never loses a match', async () => {
    // The strongest cut: every gram of the text left out but its last, as when all the others are frequent;
    // and every gram, which keeps them all (a query needs one).
    const candidates = (table: string, columns: string[], text: string, skip: 'allButLast' | 'all') =>
      dataSource.query<{ uuid: string }[]>(
        `WITH g AS (SELECT tsvector_to_array(wharf_search_grams($2)) AS grams,
                           substr(lower($2), greatest(length(lower($2)) - 4, 1), 5) AS last)
         SELECT uuid FROM ${table} t, g WHERE t.company_uuid = $1
           AND (${columns.map((c) => `t.${c} ILIKE $3 ESCAPE '\\'`).join(' OR ')})
           AND wharf_search_grams(${columns.map((c) => `t.${c}`).join(', ')})
               @@ wharf_search_query($2, CASE WHEN $4 THEN g.grams ELSE array_remove(g.grams, g.last) END)
         ORDER BY uuid`,
        [acme.uuid, text, `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`, skip === 'all'],
      );
    let matched = 0;
    for (const text of texts()) {
      for (const [table, columns] of [
        ['locations', ['name', 'city']],
        ['orders', ['reference', 'notes']],
      ] as const) {
        const expected = await oracle(table, [...columns], text);
        for (const skip of ['allButLast', 'all'] as const) {
          const found = (await candidates(table, [...columns], text, skip)).map((row) => row.uuid).sort();
          expect({ text, table, skip, found }).toEqual({ text, table, skip, found: expected });
        }
        if (expected.length) matched++;
      }
    }
    expect(matched).toBeGreaterThan(300);
  }, 120_000);

  it('the one-argument query is the two-argument one with no gram left out, as its own body was', async () => {
    const runner = dataSource.createQueryRunner();
    const queries = async () =>
      (
        (await runner.query(
          'SELECT array_agg(wharf_search_query(t)::text ORDER BY n) AS q FROM unnest($1::text[]) WITH ORDINALITY AS u(t, n)',
          [texts()],
        )) as { q: string[] }[]
      )[0].q;
    await runner.startTransaction();
    try {
      const folded = await queries();
      expect(folded).toEqual(
        (
          (await runner.query(
            `SELECT array_agg(wharf_search_query(t, '{}')::text ORDER BY n) AS q
               FROM unnest($1::text[]) WITH ORDINALITY AS u(t, n)`,
            [texts()],
          )) as { q: string[] }[]
        )[0].q,
      );
      // The migration's down puts back the body it had (1700000000003's), which gives the same queries.
      await new SearchQueryOneBody1700000000005().down(runner);
      expect(await queries()).toEqual(folded);
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  });

  it('the searches read the search index', async () => {
    const [plan] = await dataSource.query(
      `EXPLAIN (FORMAT JSON) SELECT id FROM locations t WHERE company_uuid = $1
         AND wharf_search_grams(t."name", t."city") @@ (SELECT wharf_search_query($2)) LIMIT 10001`,
      [acme.uuid, 'needle'],
    );
    expect(JSON.stringify(plan['QUERY PLAN'])).toContain('"Index Name":"locations_name_city_search_idx"');
  });

  it('a long value is found wherever the text is in it', async () => {
    const res = await http(api.url, 'GET', '/fleet/int/v1/orders?limit=100&query=nneedle', { key: acme.key });
    expect(res.body.orders).toHaveLength(LONG.length);
    expect(res.body.meta).toMatchObject({ total: LONG.length, total_exact: true });
  });

  it('a searchable column _like uses the same index and keeps its own column', async () => {
    const byName = await http(api.url, 'GET', '/int/v1/locations?limit=100&name_like=%C3%A4pfel', {
      key: acme.key,
    });
    expect((byName.body.locations as { uuid: string }[]).map((l) => l.uuid).sort()).toEqual(
      (
        await dataSource.query(
          `SELECT uuid FROM locations WHERE company_uuid = $1 AND name ILIKE '%äpfel%'`,
          [acme.uuid],
        )
      )
        .map((row: { uuid: string }) => row.uuid)
        .sort(),
    );
    expect(byName.body.locations).toHaveLength(2);
  });
});
