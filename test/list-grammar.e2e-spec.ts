import { DataSource } from 'typeorm';
import { createCompany, TestCompany } from './support/accounts';
import { http, HttpResult } from './support/http';
import { startApi, TestApi } from './support/test-app';

const W = '/inventory/int/v1/warehouses';
const NAMES = [
  'Alpha',
  'Bravo',
  'Charlie',
  'Delta',
  'Echo',
  'Foxtrot',
  'Golf',
  'Hotel',
  'India',
  'Juliet',
  'Kilo',
  'Lima',
];
const CITIES = ['Austin', 'Boston', 'Denver'];

interface Seeded {
  uuid: string;
  name: string;
  city: string;
  capacity: number;
  is_primary: boolean;
  location_uuid: string | null;
  created_at: string;
}

describe('list grammar', () => {
  let api: TestApi;
  let acme: TestCompany;
  let literal: TestCompany;
  /** In creation order: Alpha (capacity 10) … Lima (capacity 120). */
  let seeded: Seeded[];
  let location: { uuid: string };

  const list = (query: string | Record<string, string>, company?: TestCompany): Promise<HttpResult> => {
    const search = typeof query === 'string' ? query : new URLSearchParams(query).toString();
    return http(api.url, 'GET', `${W}${search ? `?${search}` : ''}`, { key: (company ?? acme).key });
  };

  async function names(query: string | Record<string, string>, company?: TestCompany): Promise<string[]> {
    const res = await list(query, company);
    expect({ query, status: res.status, errors: res.body?.errors }).toEqual({
      query,
      status: 200,
      errors: undefined,
    });
    return res.body.warehouses.map((warehouse: any) => warehouse.name);
  }

  const where = (test: (w: Seeded) => boolean) => seeded.filter(test).map((w) => w.name);
  const newestFirst = (items: string[]) => [...items].reverse();

  beforeAll(async () => {
    api = await startApi();
    acme = await createCompany(api, 'Acme');
    literal = await createCompany(api, 'Literal');
    location = (
      await http(api.url, 'POST', '/int/v1/locations', { key: acme.key, body: { location: { name: 'Loc' } } })
    ).body.location;
    seeded = [];
    for (const [index, name] of NAMES.entries()) {
      const i = index + 1;
      const res = await http(api.url, 'POST', W, {
        key: acme.key,
        body: {
          warehouse: {
            name,
            address: `${i} Main St`,
            city: CITIES[index % 3],
            state: 'TX',
            zip: String(70000 + i),
            capacity: 10 * i,
            is_primary: i % 4 === 0,
            location_uuid: i % 2 === 1 ? location.uuid : null,
          },
        },
      });
      expect(res.status).toBe(201);
      seeded.push(res.body.warehouse);
      // distinct creation times, so created_at orders and filters deterministically
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    // another company's records never show up in these lists
    await http(api.url, 'POST', W, {
      key: literal.key,
      body: { name: 'Alpha', address: 'x', city: 'Austin', state: 'TX', zip: '1', capacity: 10 },
    });
  });
  afterAll(() => api.close());

  describe('paging and meta', () => {
    it('defaults to 30 per page, newest first', async () => {
      const res = await list('');
      expect(res.body.warehouses.map((w: any) => w.name)).toEqual(newestFirst(NAMES));
      expect(res.body.meta).toEqual({
        total: 12,
        total_exact: true,
        per_page: 30,
        current_page: 1,
        last_page: 1,
        from: 1,
        to: 12,
        next_cursor: null,
      });
    });

    it('limit and page', async () => {
      const expected = newestFirst(NAMES);
      const first = await list('limit=5');
      expect(first.body.warehouses.map((w: any) => w.name)).toEqual(expected.slice(0, 5));
      expect(first.body.meta).toEqual({
        total: 12,
        total_exact: true,
        per_page: 5,
        current_page: 1,
        last_page: 3,
        from: 1,
        to: 5,
        next_cursor: expect.any(String),
      });

      const second = await list('limit=5&page=2');
      expect(second.body.warehouses.map((w: any) => w.name)).toEqual(expected.slice(5, 10));
      expect(second.body.meta).toEqual({
        total: 12,
        total_exact: true,
        per_page: 5,
        current_page: 2,
        last_page: 3,
        from: 6,
        to: 10,
        next_cursor: expect.any(String),
      });

      const last = await list('limit=5&page=3');
      expect(last.body.warehouses.map((w: any) => w.name)).toEqual(['Bravo', 'Alpha']);
      expect(last.body.meta).toEqual({
        total: 12,
        total_exact: true,
        per_page: 5,
        current_page: 3,
        last_page: 3,
        from: 11,
        to: 12,
        next_cursor: null,
      });

      const beyond = await list('limit=5&page=4');
      expect(beyond.body.warehouses).toEqual([]);
      expect(beyond.body.meta).toEqual({
        total: 12,
        total_exact: true,
        per_page: 5,
        current_page: 4,
        last_page: 3,
        from: null,
        to: null,
        next_cursor: null,
      });

      expect(await names('limit=100')).toEqual(expected);
      expect(await names('limit=1&sort=name')).toEqual(['Alpha']);
    });

    it('offset, which wins over page', async () => {
      const byName = await list('sort=name&limit=4&offset=3');
      expect(byName.body.warehouses.map((w: any) => w.name)).toEqual(['Delta', 'Echo', 'Foxtrot', 'Golf']);
      expect(byName.body.meta).toMatchObject({ total: 12, per_page: 4, from: 4, to: 7 });

      expect(await names('sort=name&limit=4&page=3&offset=1')).toEqual(['Bravo', 'Charlie', 'Delta', 'Echo']);
      expect(await names('sort=name&offset=10')).toEqual(['Kilo', 'Lima']);
      expect(await names('sort=name&limit=3&offset=0&page=2')).toEqual(['Alpha', 'Bravo', 'Charlie']);

      const past = await list('offset=12');
      expect(past.body.warehouses).toEqual([]);
      expect(past.body.meta).toMatchObject({ total: 12, from: null, to: null });
    });

    it('meta.total counts the filtered set, not the page', async () => {
      const res = await list('city=Austin&limit=2&sort=name');
      expect(res.body.warehouses.map((w: any) => w.name)).toEqual(['Alpha', 'Delta']);
      expect(res.body.meta).toEqual({
        total: 4,
        total_exact: true,
        per_page: 2,
        current_page: 1,
        last_page: 2,
        from: 1,
        to: 2,
        next_cursor: expect.any(String),
      });
      const none = await list('name=Nobody');
      expect(none.body).toEqual({
        warehouses: [],
        meta: {
          total: 0,
          total_exact: true,
          per_page: 30,
          current_page: 1,
          last_page: 1,
          from: null,
          to: null,
          next_cursor: null,
        },
      });
    });
  });

  describe('sort', () => {
    it('by one column, ascending or descending in both spellings', async () => {
      const sorted = [...NAMES].sort();
      expect(await names('sort=name')).toEqual(sorted);
      expect(await names('sort=-name')).toEqual([...sorted].reverse());
      expect(await names('sort=name:desc')).toEqual([...sorted].reverse());
      expect(await names('sort=name:asc')).toEqual(sorted);
      expect(await names('sort=-created_at')).toEqual(newestFirst(NAMES));
      expect(await names('sort=created_at')).toEqual(NAMES);
      expect(await names('sort=-capacity')).toEqual(newestFirst(NAMES));
    });

    it('by several columns', async () => {
      const expected = [...seeded]
        .sort((a, b) => a.city.localeCompare(b.city) || b.capacity - a.capacity)
        .map((w) => w.name);
      expect(await names('sort=city,-capacity')).toEqual(expected);
      expect(await names('sort=city:asc,capacity:desc')).toEqual(expected);
      expect(await names('sort=is_primary:desc,name')).toEqual([
        'Delta',
        'Hotel',
        'Lima',
        ...where((w) => !w.is_primary).sort(),
      ]);
    });
  });

  describe('query', () => {
    it('is a case-insensitive substring over the searchable columns only', async () => {
      expect(await names({ query: 'ha', sort: 'name' })).toEqual(['Alpha', 'Charlie']);
      expect(await names({ query: 'ECHO' })).toEqual(['Echo']);
      expect(await names({ query: 'li', sort: 'name' })).toEqual(['Charlie', 'Juliet', 'Lima']);
      // city is not searchable for warehouses
      expect(await names({ query: 'Austin' })).toEqual([]);
      expect(await names({ query: '' })).toHaveLength(12);
    });

    it('combines with filters and paging', async () => {
      const res = await list({ query: 'o', city: 'Boston', sort: 'name', limit: '1' });
      // Bravo, Echo, Hotel, Kilo are in Boston; Bravo, Echo, Hotel and Kilo all contain "o"
      expect(res.body.warehouses.map((w: any) => w.name)).toEqual(['Bravo']);
      expect(res.body.meta).toMatchObject({ total: 4, last_page: 4 });
    });
  });

  describe('filters: every operator', () => {
    it('<col>=v (equality)', async () => {
      expect(await names('city=Austin&sort=name')).toEqual(where((w) => w.city === 'Austin'));
      expect(await names('capacity=30')).toEqual(['Charlie']);
      expect(await names('is_primary=true&sort=name')).toEqual(['Delta', 'Hotel', 'Lima']);
      expect(await names('is_primary=false&sort=name')).toEqual(where((w) => !w.is_primary));
      expect(await names(`uuid=${seeded[4].uuid}`)).toEqual(['Echo']);
      expect(await names(`location_uuid=${location.uuid}&sort=name`)).toEqual(
        where((w) => w.location_uuid !== null),
      );
      expect(await names({ name: 'alpha' })).toEqual([]);
    });

    it('equality on a timestamp takes back the value a read returned', async () => {
      for (const w of [seeded[0], seeded[6], seeded[11]]) {
        expect(await names({ created_at: w.created_at })).toEqual([w.name]);
      }
    });

    it('_not', async () => {
      expect(await names('city_not=Austin&sort=name')).toEqual(where((w) => w.city !== 'Austin'));
      expect(await names('is_primary_not=true&sort=name')).toEqual(where((w) => !w.is_primary));
      // null location_uuid counts as "not" that location
      expect(await names(`location_uuid_not=${location.uuid}&sort=name`)).toEqual(
        where((w) => w.location_uuid === null),
      );
    });

    it('_gt, _gte, _lt, _lte', async () => {
      expect(await names('capacity_gt=100&sort=name')).toEqual(['Kilo', 'Lima']);
      expect(await names('capacity_gte=100&sort=name')).toEqual(['Juliet', 'Kilo', 'Lima']);
      expect(await names('capacity_lt=30&sort=name')).toEqual(['Alpha', 'Bravo']);
      expect(await names('capacity_lte=30&sort=name')).toEqual(['Alpha', 'Bravo', 'Charlie']);
      expect(await names('capacity_gt=40&capacity_lte=60&sort=name')).toEqual(['Echo', 'Foxtrot']);
      expect(await names('name_lt=C&sort=name')).toEqual(['Alpha', 'Bravo']);
      expect(await names('capacity_gt=-1')).toHaveLength(12);
    });

    it('_gt, _gte, _lt, _lte on timestamps, with the values a read returned', async () => {
      const t = (i: number) => seeded[i].created_at;
      expect(await names({ created_at_gt: t(9), sort: 'name' })).toEqual(['Kilo', 'Lima']);
      expect(await names({ created_at_gte: t(9), sort: 'name' })).toEqual(['Juliet', 'Kilo', 'Lima']);
      expect(await names({ created_at_lt: t(2), sort: 'name' })).toEqual(['Alpha', 'Bravo']);
      expect(await names({ created_at_lte: t(2), sort: 'name' })).toEqual(['Alpha', 'Bravo', 'Charlie']);
      expect(await names({ created_at_gt: t(3), created_at_lt: t(6), sort: 'name' })).toEqual([
        'Echo',
        'Foxtrot',
      ]);
      expect(await names({ updated_at_gte: t(11) })).toEqual(['Lima']);
    });

    it('_like (case-insensitive substring)', async () => {
      expect(await names('name_like=LI&sort=name')).toEqual(['Charlie', 'Juliet', 'Lima']);
      expect(await names('city_like=ost&sort=name')).toEqual(where((w) => w.city === 'Boston'));
      expect(await names('capacity_like=20&sort=name')).toEqual(['Bravo', 'Lima']);
      expect(await names('name_like=zzz')).toEqual([]);
    });

    it('_in and _notIn (comma lists)', async () => {
      expect(await names('name_in=Alpha,Echo,Nobody&sort=name')).toEqual(['Alpha', 'Echo']);
      expect(await names('capacity_in=10,120&sort=name')).toEqual(['Alpha', 'Lima']);
      expect(await names(`uuid_in=${seeded[1].uuid},${seeded[2].uuid}&sort=name`)).toEqual([
        'Bravo',
        'Charlie',
      ]);
      expect(await names('city_in=Boston,Denver&sort=name')).toEqual(where((w) => w.city !== 'Austin'));
      expect(await names('name_notIn=Alpha,Bravo&sort=name')).toEqual(NAMES.slice(2));
      expect(await names('capacity_notIn=10,20,30,40,50,60,70,80,90,100&sort=name')).toEqual([
        'Kilo',
        'Lima',
      ]);
      expect(await names(`location_uuid_notIn=${location.uuid}&sort=name`)).toEqual(
        where((w) => w.location_uuid === null),
      );
    });

    it('_isNull and _isNotNull', async () => {
      expect(await names('location_uuid_isNull=true&sort=name')).toEqual(
        where((w) => w.location_uuid === null),
      );
      expect(await names('location_uuid_isNotNull=true&sort=name')).toEqual(
        where((w) => w.location_uuid !== null),
      );
      expect(await names('name_isNull=true')).toEqual([]);
      expect(await names('name_isNotNull=true')).toHaveLength(12);
    });

    it('several filters combine with AND', async () => {
      expect(await names('city=Austin&capacity_gt=30&location_uuid_isNull=true&sort=name')).toEqual(
        where((w) => w.city === 'Austin' && w.capacity > 30 && w.location_uuid === null),
      );
    });
  });

  describe('bad parameters: 400 naming the problem', () => {
    it.each([
      ['limit=101', 'limit'],
      ['limit=0', 'limit'],
      ['limit=ten', 'limit'],
      ['page=0', 'page'],
      ['offset=-1', 'offset'],
      ['sort=password', 'sort', 'password'],
      ['sort=name,secret', 'sort', 'secret'],
      ['sort=id', 'sort', 'id'],
      ['foo_gt=1', 'foo_gt'],
      ['foo=1', 'foo'],
      ['password=x', 'password'],
      ['name_between=a', 'name_between'],
      ['capacity=abc', 'capacity'],
      ['capacity_gte=1.5', 'capacity_gte'],
      ['capacity_in=1,two', 'capacity_in'],
      ['is_primary=yes', 'is_primary'],
      ['uuid=not-a-uuid', 'uuid'],
      ['created_at_gt=yesterday', 'created_at_gt'],
      ['location_uuid_isNull=false', 'location_uuid_isNull'],
      ['limit=5&limit=6', 'limit'],
    ])('%s', async (query, parameter, mentioned = parameter) => {
      const res = await list(query);
      expect(res.status).toBe(400);
      expect(res.body.errors).toHaveLength(1);
      const [error] = res.body.errors;
      expect(error).toMatchObject({ status: '400', code: expect.any(String), title: expect.any(String) });
      expect(error.source?.parameter).toBe(parameter);
      expect(error.detail).toContain(mentioned);
    });
  });

  describe('special characters match literally', () => {
    const literalNames = [
      '100% Cotton',
      '100X Cotton',
      '1000 Cotton',
      'a_b depot',
      'axb depot',
      "O'Brien's",
      'OBriens',
      'semi;colon',
      'semicolon',
      'back\\slash',
      'backslash',
    ];

    beforeAll(async () => {
      for (const name of literalNames) {
        const res = await http(api.url, 'POST', W, {
          key: literal.key,
          body: { name, address: 'x', city: 'x', state: 'x', zip: 'x', capacity: 1 },
        });
        expect(res.status).toBe(201);
      }
    });

    it.each([
      ['%', ['100% Cotton']],
      ['100%', ['100% Cotton']],
      ['0% c', ['100% Cotton']],
      ['_', ['a_b depot']],
      ['a_b', ['a_b depot']],
      ["'", ["O'Brien's"]],
      ["O'Brien's", ["O'Brien's"]],
      [';', ['semi;colon']],
      ['semi;', ['semi;colon']],
      ['\\', ['back\\slash']],
      ['%_', []],
      ["'; DROP TABLE warehouses; --", []],
      ["' OR '1'='1", []],
    ])('query=%s', async (query, expected) => {
      expect((await names({ query, sort: 'name' }, literal)).sort()).toEqual([...expected].sort());
    });

    it('filters bind the same characters as values', async () => {
      expect(await names({ name: "O'Brien's" }, literal)).toEqual(["O'Brien's"]);
      expect(await names({ name_like: '0%', sort: 'name' }, literal)).toEqual(['100% Cotton']);
      expect(await names({ name_like: 'a_b' }, literal)).toEqual(['a_b depot']);
      expect(await names({ name_in: "semi;colon,O'Brien's", sort: 'name' }, literal)).toEqual([
        "O'Brien's",
        'semi;colon',
      ]);
      expect(await names({ name_not: "'; DROP TABLE warehouses; --" }, literal)).toHaveLength(
        literalNames.length + 1,
      );
      // the table is still there
      const [{ n }] = await api.app.get(DataSource).query('SELECT count(*)::int AS n FROM warehouses');
      expect(n).toBe(NAMES.length + literalNames.length + 1);
    });
  });
});
