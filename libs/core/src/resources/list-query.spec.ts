import { ApiError } from '../common/api-error';
import { DEFAULT_LIMIT, parseListQuery, searchIndexed } from './list-query';
import { ColumnInfo, ResourceDefinition } from './resource-definition';
import { Params } from './sql';

class WidgetDto {}
class Widget {}

const columns: ColumnInfo[] = [
  { name: 'uuid', kind: 'uuid' },
  { name: 'company_uuid', kind: 'uuid' },
  { name: 'location_uuid', kind: 'uuid' },
  { name: 'name', kind: 'string' },
  { name: 'capacity', kind: 'integer' },
  { name: 'latitude', kind: 'number' },
  { name: 'is_primary', kind: 'boolean' },
  { name: 'status', kind: 'string', enum: ['active', 'inactive'] },
  { name: 'meta', kind: 'json' },
  { name: 'created_at', kind: 'timestamp' },
  { name: 'updated_at', kind: 'timestamp' },
];

const def: ResourceDefinition = {
  name: 'widget',
  path: 'widgets',
  keys: { singular: 'widget', plural: 'widgets' },
  entity: Widget,
  table: 'widgets',
  dto: WidgetDto,
  columns: new Map(columns.map((column) => [column.name, column])),
  searchable: ['name', 'status'],
  sortable: new Set(columns.filter((column) => column.kind !== 'json').map((column) => column.name)),
  writable: new Set(['name', 'capacity', 'latitude', 'is_primary', 'status', 'meta', 'location_uuid']),
  hidden: new Set(['secret']),
  embeds: [],
  references: [],
};

const UUID_A = '8f0c2a64-8a8d-4d0e-9f5c-1f7c1c0b6d11';
const UUID_B = '0b7f3c7e-2b44-4c3e-8d1a-7a6f0e9c2d22';

function parse(query: Record<string, unknown>) {
  const params = new Params();
  const parsed = parseListQuery(query, def, params);
  return { ...parsed, values: params.values };
}

function failure(query: Record<string, unknown>): ApiError {
  try {
    parse(query);
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  }
  throw new Error(`expected ${JSON.stringify(query)} to be rejected`);
}

function expectBadParameter(query: Record<string, unknown>, parameter: string) {
  const error = failure(query);
  expect(error.getStatus()).toBe(400);
  expect(error.errors).toHaveLength(1);
  expect(error.errors[0]).toMatchObject({ status: '400', source: { parameter } });
  expect(error.errors[0].detail).toContain(parameter);
}

/** No client value may ever appear in the SQL text, only `$n` placeholders. */
function expectNoValuesInSql(sql: string[], values: unknown[]) {
  for (const value of values.flat()) {
    if (typeof value === 'string' && value.length > 1) {
      for (const fragment of sql) expect(fragment).not.toContain(value);
    }
  }
}

describe('parseListQuery', () => {
  it('defaults: no conditions, 30 per page from offset 0, newest first', () => {
    const parsed = parse({});
    expect(parsed).toMatchObject({
      conditions: [],
      orderBy: 't."created_at" DESC, t."id" DESC',
      limit: DEFAULT_LIMIT,
      offset: 0,
      values: [],
      sort: '-created_at',
      cursor: false,
    });
  });

  it('paginates with limit and page, and offset wins over page', () => {
    expect(parse({ limit: '10', page: '3' })).toMatchObject({ limit: 10, offset: 20 });
    expect(parse({ limit: '10', page: '3', offset: '7' })).toMatchObject({ limit: 10, offset: 7 });
    expect(parse({ limit: '100' })).toMatchObject({ limit: 100, offset: 0 });
    expect(parse({ limit: '1' })).toMatchObject({ limit: 1 });
  });

  it.each([
    [{ limit: '101' }, 'limit'],
    [{ limit: '0' }, 'limit'],
    [{ limit: '-1' }, 'limit'],
    [{ limit: '10.5' }, 'limit'],
    [{ limit: 'ten' }, 'limit'],
    [{ limit: ['10', '20'] }, 'limit'],
    [{ page: '0' }, 'page'],
    [{ page: 'x' }, 'page'],
    [{ page: '9007199254740991' }, 'page'],
    [{ page: '1000000001' }, 'page'],
    [{ offset: '-5' }, 'offset'],
    [{ offset: '1e3' }, 'offset'],
  ])('rejects paging %j naming %s', (query, parameter) => {
    expectBadParameter(query, parameter);
  });

  it('sorts by one or several allowlisted columns, in all three spellings', () => {
    expect(parse({ sort: 'name' }).orderBy).toBe('t."name" ASC, t."id" ASC');
    expect(parse({ sort: '-created_at' }).orderBy).toBe('t."created_at" DESC, t."id" DESC');
    expect(parse({ sort: 'name:desc' }).orderBy).toBe('t."name" DESC, t."id" DESC');
    expect(parse({ sort: 'name:ASC' }).orderBy).toBe('t."name" ASC, t."id" ASC');
    expect(parse({ sort: 'capacity,-name' }).orderBy).toBe('t."capacity" ASC, t."name" DESC, t."id" DESC');
  });

  it.each([
    'password',
    'secret',
    'id',
    'meta',
    'name;DROP TABLE widgets',
    'name,',
    '"name"',
    'name:sideways',
  ])('rejects sort=%s naming sort', (sort) => {
    expectBadParameter({ sort }, 'sort');
  });

  it('turns every filter operator into SQL over placeholders, values bound', () => {
    const cases: [Record<string, string>, string, unknown[]][] = [
      [{ name: 'Main' }, 't."name" = $1', ['Main']],
      [{ name_not: 'Main' }, 't."name" IS DISTINCT FROM $1', ['Main']],
      [{ capacity_gt: '10' }, 't."capacity" > $1', [10]],
      [{ capacity_gte: '10' }, 't."capacity" >= $1', [10]],
      [{ capacity_lt: '-3' }, 't."capacity" < $1', [-3]],
      [{ capacity_lte: '10' }, 't."capacity" <= $1', [10]],
      [{ latitude_gt: '-12.5' }, 't."latitude" > $1', [-12.5]],
      [{ name_like: 'ai' }, `t."name" ILIKE $1 ESCAPE '\\'`, ['%ai%']],
      [{ capacity_like: '5' }, `t."capacity"::text ILIKE $1 ESCAPE '\\'`, ['%5%']],
      [{ name_in: 'A,B' }, 't."name" = ANY($1)', [['A', 'B']]],
      [{ capacity_notIn: '1,2' }, '(NOT (t."capacity" = ANY($1)) OR t."capacity" IS NULL)', [[1, 2]]],
      [{ location_uuid_isNull: 'true' }, 't."location_uuid" IS NULL', []],
      [{ location_uuid_isNotNull: 'true' }, 't."location_uuid" IS NOT NULL', []],
      [{ is_primary: 'true' }, 't."is_primary" = $1', [true]],
      [{ is_primary: '0' }, 't."is_primary" = $1', [false]],
      [{ uuid: UUID_A.toUpperCase() }, 't."uuid" = $1', [UUID_A]],
      [{ uuid_in: `${UUID_A},${UUID_B}` }, 't."uuid" = ANY($1)', [[UUID_A, UUID_B]]],
      [{ status: 'active' }, 't."status" = $1', ['active']],
      [{ created_at_gte: '2026-01-02T03:04:05.678Z' }, 't."created_at" >= $1', ['2026-01-02T03:04:05.678Z']],
    ];
    for (const [query, sql, values] of cases) {
      const parsed = parse(query);
      expect({ query, conditions: parsed.conditions, values: parsed.values }).toEqual({
        query,
        conditions: [sql],
        values,
      });
    }
  });

  it('combines filters and search with AND, numbering placeholders in order', () => {
    const parsed = parse({ name_like: 'a', capacity_gt: '5', query: 'north', limit: '5', sort: 'name' });
    expect(parsed.conditions).toEqual([
      `t."name" ILIKE $1 ESCAPE '\\'`,
      't."capacity" > $2',
      `(t."name" ILIKE $3 ESCAPE '\\' OR t."status" ILIKE $3 ESCAPE '\\')`,
    ]);
    expect(parsed.values).toEqual(['%a%', 5, '%north%']);
  });

  it("query and a searchable column's _like keep their text for the search index, as parameters", () => {
    expect(parse({ query: 'north', name_like: 'x' })).toMatchObject({
      searches: ['x', 'north'],
      search: true,
    });
    // Not searchable, or empty: the ILIKE alone.
    expect(parse({ capacity_like: '5', name_like: '' })).toMatchObject({ searches: [], search: false });
    const params = new Params();
    params.add('%north%');
    expect(searchIndexed(def, params, 'north', ['nort'])).toBe(
      'wharf_search_grams(t."name", t."status") @@ (SELECT wharf_search_query($2, $3::text[]))',
    );
    expect(params.values).toEqual(['%north%', 'north', ['nort']]);
  });

  it('with search keys, the candidates are the rows of the keys whose values hold the grams', () => {
    const keyed = { ...def, searchKeys: { table: 'widget_keys', by: ['status'] } };
    const params = new Params();
    expect(searchIndexed(keyed, params, 'north').replace(/\s+/g, ' ')).toBe(
      '(t."status") IN (SELECT k."status" FROM "widget_keys" k WHERE k."company_uuid" = t."company_uuid" AND wharf_search_grams(k."name", k."status") @@ (SELECT wharf_search_query($1, $2::text[])))',
    );
    expect(params.values).toEqual(['north', []]);
  });

  it('search escapes LIKE wildcards and never puts the text into the SQL', () => {
    const text = `50%_off'; DROP TABLE widgets; --\\`;
    const parsed = parse({ query: text });
    expect(parsed.values).toEqual([`%50\\%\\_off'; DROP TABLE widgets; --\\\\%`]);
    expect(parsed.conditions).toHaveLength(1);
    expect(parsed.conditions[0]).toMatch(/^\(t\."name" ILIKE \$1 ESCAPE '\\' OR t\."status" ILIKE \$1/);
    expectNoValuesInSql(parsed.conditions, [text, 'DROP TABLE']);
  });

  it('an empty search is no condition', () => {
    expect(parse({ query: '' })).toMatchObject({ conditions: [], values: [] });
  });

  it('filter values with SQL in them stay in the parameters', () => {
    const hostile = `x' OR '1'='1`;
    const parsed = parse({ name: hostile, name_in: `${hostile},y`, name_like: hostile });
    expect(parsed.values).toEqual([hostile, [hostile, 'y'], `%${hostile}%`]);
    expectNoValuesInSql(parsed.conditions, [hostile, `'1'='1`]);
  });

  it.each([
    [{ foo: '1' }, 'foo'],
    [{ foo_gt: '1' }, 'foo_gt'],
    [{ password: 'x' }, 'password'],
    [{ secret: 'x' }, 'secret'],
    [{ id: '1' }, 'id'],
    [{ name_between: 'a' }, 'name_between'],
    [{ 'name;--': 'a' }, 'name;--'],
    [{ capacity: 'abc' }, 'capacity'],
    [{ capacity_gt: '1.5' }, 'capacity_gt'],
    [{ capacity_in: '1,x' }, 'capacity_in'],
    [{ latitude: 'north' }, 'latitude'],
    [{ latitude: '' }, 'latitude'],
    [{ is_primary: 'yes' }, 'is_primary'],
    [{ uuid: 'not-a-uuid' }, 'uuid'],
    [{ location_uuid_in: `${UUID_A},nope` }, 'location_uuid_in'],
    [{ created_at_gt: 'yesterday' }, 'created_at_gt'],
    [{ status: 'sleeping' }, 'status'],
    [{ meta: '{}' }, 'meta'],
    [{ location_uuid_isNull: 'false' }, 'location_uuid_isNull'],
    [{ name: ['a', 'b'] }, 'name'],
    [{ query: ['a', 'b'] }, 'query'],
  ])('rejects %j with a 400 naming %s', (query, parameter) => {
    expectBadParameter(query, parameter);
  });
});
