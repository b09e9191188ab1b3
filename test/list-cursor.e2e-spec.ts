import { createCompany, TestCompany } from './support/accounts';
import { http } from './support/http';
import { startApi, TestApi } from './support/test-app';

/** Keyset cursors: `meta.next_cursor` walks a list in the same order as pages, ties and NULLs included. */
describe('list: keyset cursors', () => {
  let api: TestApi;
  let acme: TestCompany;

  const locations = [
    { name: 'Depot', city: 'Lyon', latitude: 45.7 },
    { name: 'Annex', city: null, latitude: null },
    { name: 'Depot', city: 'Lyon', latitude: 45.8 },
    { name: 'Yard', city: 'Nice', latitude: null },
    { name: 'Annex', city: 'Lyon', latitude: 1 },
    { name: 'Basin', city: null, latitude: 2 },
    { name: 'Quay', city: 'Brest', latitude: 48.4 },
  ];

  beforeAll(async () => {
    api = await startApi();
    acme = await createCompany(api);
    for (const body of locations) {
      const created = await http(api.url, 'POST', '/int/v1/locations', { key: acme.key, body });
      expect(created.status).toBe(201);
    }
  });
  afterAll(() => api.close());

  const get = (query: string) => http(api.url, 'GET', `/int/v1/locations?${query}`, { key: acme.key });

  async function walk(sort: string, limit: number) {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await get(`sort=${sort}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      expect(page.body.meta.total).toBe(locations.length);
      seen.push(...page.body.locations.map((l: { uuid: string }) => l.uuid));
      cursor = page.body.meta.next_cursor;
      pages++;
    } while (cursor && pages < 20);
    return { seen, pages };
  }

  it.each(['city,-name', '-city,name', 'latitude', '-latitude', 'name,city', '-created_at'])(
    'walks sort=%s exactly as offset paging orders it',
    async (sort) => {
      const all = await get(`sort=${sort}&limit=100`);
      const expected = all.body.locations.map((l: { uuid: string }) => l.uuid);
      expect(expected).toHaveLength(locations.length);
      expect(all.body.meta.next_cursor).toBeNull();
      const { seen, pages } = await walk(sort, 2);
      expect(seen).toEqual(expected);
      expect(pages).toBe(4);
    },
  );

  it('refuses a tampered cursor, a cursor of another sort, and a cursor with page or offset', async () => {
    const first = await get('sort=name&limit=2');
    const cursor = first.body.meta.next_cursor as string;
    expect(typeof cursor).toBe('string');
    for (const query of [
      'sort=name&cursor=not-a-cursor',
      `sort=name&cursor=${Buffer.from('{"s":"name","v":[{}],"u":"x"}').toString('base64url')}`,
      `sort=-name&cursor=${cursor}`,
      `sort=name&page=2&cursor=${cursor}`,
      `sort=name&offset=2&cursor=${cursor}`,
    ]) {
      const refused = await get(query);
      expect(refused.status).toBe(400);
      expect(refused.body.errors[0].source).toEqual({ parameter: 'cursor' });
    }
  });
});
