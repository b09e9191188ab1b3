import {
  EXACT_TOTAL_LIMIT,
  FrequentGrams,
  Params,
  ResourceRegistry,
  compareSchema,
  generateMigration,
  pageStatement,
  parseListQuery,
  poolOf,
  problemLine,
  sqlOfPool,
} from '@wharf/core';
import { composeWharf } from '@wharf/webhooks';
import { DataSource } from 'typeorm';
import { createCompany, TestCompany } from './support/accounts';
import { http } from './support/http';
import { startApi, TestApi } from './support/test-app';

const W = '/inventory/int/v1/warehouses';
/** Past EXACT_TOTAL_LIMIT, so the count stops before the company's last record. */
const ROWS = 10_500;

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Relation Name'?: string;
  'Scan Direction'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
}

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

/**
 * A list page costs the same in a company of ten thousand or a million records: sorted first pages are
 * read from the `(company_uuid, column, id)` index, the count stops at EXACT_TOTAL_LIMIT, and `query=`
 * reads its matches from the search index (5-grams of the searchable columns).
 */
describe('list: pages that stay flat as a company grows', () => {
  let api: TestApi;
  let acme: TestCompany;
  let other: TestCompany;
  let dataSource: DataSource;

  beforeAll(async () => {
    api = await startApi();
    acme = await createCompany(api);
    other = await createCompany(api, 'Other');
    dataSource = api.app.get(DataSource);
    // Set-based seed: "Warehouse 1" … "Warehouse 10500", one created a second after the other.
    for (const [company, rows] of [
      [acme, ROWS],
      [other, 50],
    ] as const) {
      await dataSource.query(
        `INSERT INTO warehouses (company_uuid, name, address, city, state, zip, capacity, created_at, updated_at)
         SELECT $1, 'Warehouse ' || i, i || ' Quay', 'Porto', 'P', '4000', i % 500,
                timestamptz '2026-01-01' + i * interval '1 second', timestamptz '2026-01-01' + i * interval '1 second'
           FROM generate_series(1, $2::int) AS i`,
        [company.uuid, rows],
      );
    }
    // As autovacuum leaves it: statistics, and the GIN pending list merged into the search index.
    await dataSource.query('VACUUM ANALYZE warehouses');
  }, 60_000);
  afterAll(() => api.close());

  const get = (query: string, company = acme) => http(api.url, 'GET', `${W}?${query}`, { key: company.key });

  /** The plan of the page statement `list()` sends for `query`, run (ANALYZE) on one connection. */
  async function plan(
    query: Record<string, string>,
    setup: string[] = [],
    frequentGrams: string[] = [],
  ): Promise<PlanNode[]> {
    const def = api.app.get(ResourceRegistry).get('warehouse');
    const params = new Params();
    const parsed = parseListQuery(query, def, params);
    const text = pageStatement(
      def,
      acme.uuid,
      { ...parsed, frequentGrams },
      params,
      parsed.limit + 1,
      undefined,
      parsed.search,
    );
    const client = await poolOf(dataSource).connect();
    try {
      await client.query('BEGIN');
      for (const statement of setup) await client.query(statement);
      const { rows } = await client.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${text}`, params.values);
      await client.query('ROLLBACK');
      return nodes((rows[0]['QUERY PLAN'] as { Plan: PlanNode }[])[0].Plan);
    } finally {
      client.release();
    }
  }

  const warehouseScans = (all: PlanNode[]) => all.filter((node) => node['Relation Name'] === 'warehouses');

  it.each([
    [{}, 'warehouses_created_at_sort_idx', 'Backward'],
    [{ sort: 'name' }, 'warehouses_name_sort_idx', 'Forward'],
    [{ sort: '-name' }, 'warehouses_name_sort_idx', 'Backward'],
    [{ sort: 'capacity' }, 'warehouses_capacity_sort_idx', 'Forward'],
  ])(
    'the first page of %j is read from %s, with no Sort and no count of every row',
    async (query, index, direction) => {
      const all = await plan(query);
      expect(all.filter((node) => /Sort/.test(node['Node Type']))).toEqual([]);
      const page = warehouseScans(all).find((node) => node['Index Name'] === index);
      expect(page).toMatchObject({ 'Scan Direction': direction });
      expect(page!['Actual Rows']).toBeLessThanOrEqual(31);
      // The count reads EXACT_TOTAL_LIMIT + 1 rows at most, never the company's 10 500.
      for (const scan of warehouseScans(all))
        expect(scan['Actual Rows']! * (scan['Actual Loops'] ?? 1)).toBeLessThanOrEqual(EXACT_TOTAL_LIMIT + 1);
    },
  );

  it.each(['-created_at', 'name', '-name'])(
    'a cursor deep in sort=%s starts the index scan at the cursor: reads a page, not the rows before it',
    async (sort) => {
      const before = await get(`limit=30&offset=9000&sort=${sort}`);
      const cursor = before.body.meta.next_cursor as string;
      const all = await plan({ sort, cursor });
      expect(all.filter((node) => /Sort/.test(node['Node Type']))).toEqual([]);
      const page = warehouseScans(all).find((node) => /_sort_idx$/.test(node['Index Name'] ?? ''));
      expect(page!['Actual Rows']).toBeLessThanOrEqual(31);
      const next = await get(`limit=30&sort=${sort}&cursor=${cursor}`);
      const offset = await get(`limit=30&offset=9030&sort=${sort}`);
      expect(next.body.warehouses.map((w: { uuid: string }) => w.uuid)).toEqual(
        offset.body.warehouses.map((w: { uuid: string }) => w.uuid),
      );
    },
  );

  it.each([
    // Rare grams: a handful of candidates, whatever the size of the company.
    ['Warehouse 1049', 11, 11],
    // In every row (the other company's too): still the index, whose bitmap skips recomputing the grams
    // row by row; the heap scan stops at the count limit.
    ['warehouse', EXACT_TOTAL_LIMIT + 1, ROWS + 50],
    // Shorter than a gram: the indexed grams starting with it (104, 1040…1049, 1104…9104, 10104, 10400…10499).
    ['104', 121, 121],
  ])('query=%s reads its matches from the search index, once', async (query, matches, candidates) => {
    const all = await plan({ query });
    const scans = warehouseScans(all);
    // Once: the matches are collected, counted and paged from one index scan; the planner chooses it
    // as it would in a company of millions (no scan of the company's rows).
    expect(all.filter((node) => node['Index Name'] === 'warehouses_name_search_idx')).toEqual([
      expect.objectContaining({ 'Node Type': 'Bitmap Index Scan', 'Actual Rows': candidates }),
    ]);
    expect(scans.filter((node) => node['Node Type'] === 'Seq Scan')).toEqual([]);
    const heap = scans.find((node) => node['Node Type'] === 'Bitmap Heap Scan');
    expect(heap!['Actual Rows']).toBe(matches);
  });

  it('a search leaves out the grams most rows hold, as the index statistics give them', async () => {
    const def = api.app.get(ResourceRegistry).get('warehouse');
    const grams = await new FrequentGrams(def, sqlOfPool(poolOf(dataSource))).get();
    // In every "Warehouse N" (ANALYZE samples them all at this size); the digits of one number are rare.
    expect(grams).toEqual(expect.arrayContaining(['wareh', 'areho', 'ouse ']));
    expect(grams).not.toContain(' 1049');
    // The same candidates, from fewer index pages: the posting lists of "wareh" and "ouse " are not
    // walked for each candidate of " 1049".
    const search = (all: PlanNode[]) =>
      all.find((node) => node['Index Name'] === 'warehouses_name_search_idx')!;
    const full = search(await plan({ query: 'Warehouse 1049' }));
    const pruned = search(await plan({ query: 'Warehouse 1049' }, [], grams));
    expect(pruned['Actual Rows']).toBe(11);
    expect(full['Actual Rows']).toBe(11);
    const pages = (node: PlanNode) => node['Shared Hit Blocks']! + node['Shared Read Blocks']!;
    expect(pages(pruned)).toBeLessThan(pages(full));
    // The api's searches are built with them.
    const read = jest.spyOn(FrequentGrams.prototype, 'get');
    try {
      const found = await get('query=Warehouse%201049');
      expect(found.body.meta).toMatchObject({ total: 11, total_exact: true });
      expect(await read.mock.results[0].value).toEqual(expect.arrayContaining(['wareh', 'ouse ']));
    } finally {
      read.mockRestore();
    }
  });

  it('query= finds the substring case-insensitively, literal', async () => {
    const found = await get('query=warehouse%201049&sort=name');
    expect(found.body.warehouses.map((w: { name: string }) => w.name)).toEqual([
      'Warehouse 1049',
      ...Array.from({ length: 10 }, (_, i) => `Warehouse 1049${i}`),
    ]);
    expect(found.body.meta).toMatchObject({ total: 11, total_exact: true, last_page: 1 });
  });

  it('a search matching more than EXACT_TOTAL_LIMIT records pages like the plain list', async () => {
    const all = await get('query=warehouse&sort=name&limit=30&page=2');
    const plain = await get('sort=name&limit=30&page=2');
    expect(all.body.warehouses.map((w: { uuid: string }) => w.uuid)).toEqual(
      plain.body.warehouses.map((w: { uuid: string }) => w.uuid),
    );
    expect(all.body.meta).toMatchObject({ total: EXACT_TOTAL_LIMIT, total_exact: false, from: 31, to: 60 });
    const cursor = all.body.meta.next_cursor as string;
    const next = await get(`query=warehouse&sort=name&limit=30&cursor=${cursor}`);
    const plainNext = await get('sort=name&limit=30&page=3');
    expect(next.body.warehouses.map((w: { uuid: string }) => w.uuid)).toEqual(
      plainNext.body.warehouses.map((w: { uuid: string }) => w.uuid),
    );
  });

  it('meta.total: exact up to EXACT_TOTAL_LIMIT, then a lower bound that admits the next page', async () => {
    const first = await get('limit=30');
    expect(first.body.meta).toMatchObject({
      total: EXACT_TOTAL_LIMIT,
      total_exact: false,
      current_page: 1,
      last_page: Math.ceil(EXACT_TOTAL_LIMIT / 30),
      from: 1,
      to: 30,
    });
    // Past the limit the total grows with the page: always one more than the page's last record.
    const deep = await get('limit=100&page=101');
    expect(deep.body.meta).toMatchObject({ total: 10_101, total_exact: false, last_page: 102, to: 10_100 });
    const last = await get('limit=100&page=105');
    expect(last.body.meta).toMatchObject({ total: ROWS, total_exact: true, last_page: 105, to: ROWS });
    expect(last.body.meta.next_cursor).toBeNull();
    // Another company's count is its own, exact.
    expect((await get('limit=1', other)).body.meta).toMatchObject({ total: 50, total_exact: true });
  });

  it('a client paging by meta.last_page (as Ember apps do) reaches every record once', async () => {
    const seen = new Set<string>();
    let page = 1;
    let lastPage = 1;
    do {
      const res = await get(`limit=100&page=${page}&sort=name`);
      expect(res.status).toBe(200);
      for (const warehouse of res.body.warehouses) seen.add(warehouse.uuid);
      lastPage = res.body.meta.last_page;
      page++;
    } while (page <= lastPage && page < 200);
    expect(page - 1).toBe(105);
    expect(seen.size).toBe(ROWS);
  }, 120_000);

  it('sort accepts the declared sortable columns only (text and json columns have no index)', async () => {
    const sections = '/inventory/int/v1/warehouse-sections';
    const refused = await http(api.url, 'GET', `${sections}?sort=description`, { key: acme.key });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].source).toEqual({ parameter: 'sort' });
    expect(refused.body.errors[0].detail).toMatch(/^Cannot sort by "description": sort by .*name/);
  });

  it('migration:check names a missing list index and migration:generate writes it back', async () => {
    const { manifests } = composeWharf(api.config);
    await dataSource.query('DROP INDEX "warehouses_name_sort_idx"');
    await dataSource.query('DROP INDEX "warehouses_name_search_idx"');
    try {
      expect((await compareSchema(dataSource, manifests)).map(problemLine)).toEqual([
        expect.stringMatching(
          /^Extension "inventory", resource "warehouse", field "name": index warehouses_name_sort_idx \(btree \(company_uuid, name, id\)\) does not exist on warehouses/,
        ),
        expect.stringMatching(
          /index warehouses_name_search_idx \(gin \(wharf_search_grams\(name\)\)\) does not exist/,
        ),
      ]);
      const generated = await generateMigration(dataSource, manifests, 'inventory', 'RestoreIndexes', 1);
      expect(generated!.source).toContain(
        'CREATE INDEX IF NOT EXISTS "warehouses_name_sort_idx" ON "warehouses" USING btree ("company_uuid", "name", "id")',
      );
      expect(generated!.source).toContain(
        'CREATE INDEX IF NOT EXISTS "warehouses_name_search_idx" ON "warehouses" USING gin (wharf_search_grams("name"))',
      );
    } finally {
      await dataSource.query(
        'CREATE INDEX "warehouses_name_sort_idx" ON "warehouses" ("company_uuid", "name", "id")',
      );
      await dataSource.query(
        'CREATE INDEX "warehouses_name_search_idx" ON "warehouses" USING gin (wharf_search_grams("name"))',
      );
    }
    expect(await compareSchema(dataSource, manifests)).toEqual([]);
  });
});
