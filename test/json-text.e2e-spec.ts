import { jsonValue } from '@wharf/core/resources/record-sql';
import { envelopeSql } from '@wharf/webhooks';
import { createCompany, TestCompany } from './support/accounts';
import { http } from './support/http';
import { startApi, TestApi } from './support/test-app';
import { sql } from './support/webhooks';

const L = '/int/v1/locations';
const D = '/fleet/int/v1/drivers';

/**
 * Reads answer with the JSON text PostgreSQL builds, sent unparsed: it must be byte for byte what
 * JSON.stringify writes of the same document, or clients comparing bytes (ETags, caches) would see a change.
 */
describe('JSON text built by PostgreSQL', () => {
  let api: TestApi;
  let acme: TestCompany;

  beforeAll(async () => {
    api = await startApi();
    acme = await createCompany(api);
  });
  afterAll(() => api.close());

  const get = (path: string) => http(api.url, 'GET', path, { key: acme.key });
  const compact = (text: string) => JSON.stringify(JSON.parse(text));

  it('writes doubles as JSON.stringify does, on both sides of where PostgreSQL switches to an exponent', async () => {
    const values = [
      0,
      -0,
      1e-7,
      1.5e-7,
      1e-6,
      1.5e-5,
      1e-4,
      0.1,
      -42.5,
      123.456,
      1e15,
      1.2345678901234568e16,
      1e20,
      1e21,
      -1.5e21,
      5e-324,
      1.7976931348623157e308,
      2 ** 53 + 2,
    ];
    // This suite's own database: a double column of another resource has no range, so neither has this one.
    await sql(api, 'ALTER TABLE locations DROP CONSTRAINT locations_latitude_check');
    for (const latitude of values) {
      const created = await http(api.url, 'POST', L, {
        key: acme.key,
        body: { location: { name: `At ${latitude}`, latitude: 1.25, longitude: null } },
      });
      expect(created.status).toBe(201);
      expect(created.text).toBe(compact(created.text));
      await sql(api, 'UPDATE locations SET latitude = $1::float8 WHERE uuid = $2', [
        String(latitude),
        created.body.location.uuid,
      ]);
      const read = await get(`${L}/${created.body.location.uuid}`);
      expect(read.text).toBe(compact(read.text));
      expect(read.body.location.latitude).toBe(latitude === 0 ? 0 : latitude);
      expect(read.body.location.longitude).toBeNull();
    }
    const list = await get(`${L}?limit=100&sort=created_at`);
    expect(list.text).toBe(compact(list.text));
    expect(list.body.locations.map((l: { latitude: number }) => l.latitude)).toEqual(
      values.map((v) => (v === 0 ? 0 : v)),
    );
  });

  it('writes a real or numeric as the double its text reads as, and a double as it is', async () => {
    const values = ['0', '-0', '1e-7', '1.5e-5', '0.1', '-42.5', '52.1', '1e15', '1e20', '1e21', '3.4e38'];
    const forms = [
      { type: 'float8', column: { name: 'v', kind: 'number', double: true } },
      { type: 'float8', column: { name: 'v', kind: 'number' } },
      { type: 'real', column: { name: 'v', kind: 'number' } },
      { type: 'numeric', column: { name: 'v', kind: 'number' } },
    ] as const;
    for (const { type, column } of forms) {
      for (const value of [...values, null]) {
        const [row] = await sql(
          api,
          `SELECT ${jsonValue('t', column)} AS json, t.v::text AS text FROM (SELECT $1::${type} AS v) t`,
          [value],
        );
        // What a client reads of PostgreSQL's own text of the value, written by JSON.stringify.
        expect([type, value, row.json]).toEqual([
          type,
          value,
          row.text === null ? 'null' : JSON.stringify(Number(row.text)),
        ]);
      }
    }
  });

  it('writes strings with every escape JSON.stringify makes, and nulls', async () => {
    const name = 'quote " backslash \\ slash / tab \t newline \n bell \u0007 del \u007f é 😀 \u2028';
    const created = await http(api.url, 'POST', L, {
      key: acme.key,
      body: { location: { name, city: null } },
    });
    const read = await get(`${L}/${created.body.location.uuid}`);
    expect(read.text).toBe(compact(read.text));
    expect(read.body.location).toMatchObject({ name, city: null });
  });

  it('normalises a record with a json column (stored text keeps its spacing and number forms)', async () => {
    const created = await http(api.url, 'POST', D, { key: acme.key, body: { driver: { name: 'Ann' } } });
    expect(created.status).toBe(201);
    const uuid = created.body.driver.uuid;
    // As a hot path writes it: jsonb text, spaced, a numeric as written.
    await sql(
      api,
      `UPDATE drivers SET location = '{"lat": 1.50, "lng": 1e-5, "nested": {"b": [1, 2]}}' WHERE uuid = $1`,
      [uuid],
    );
    for (const path of [`${D}/${uuid}`, `${D}?uuid=${uuid}`]) {
      const read = await get(path);
      expect(read.text).toBe(compact(read.text));
    }
    expect((await get(`${D}/${uuid}`)).body.driver.location).toEqual({
      lat: 1.5,
      lng: 0.00001,
      nested: { b: [1, 2] },
    });
  });

  it('builds the webhook envelope of any record as {id: uuid ?? id, ...record, additionalData}', async () => {
    const records: Record<string, unknown>[] = [
      { id: 'r1', uuid: 'u1', name: 'resource-like' },
      { uuid: 'u2', name: 'no id' },
      { name: 'neither' },
      { uuid: null, id: 7, n: 1 },
      { uuid: null, name: 'null uuid, no id' },
      { name: 'id later', id: 'late' },
      {},
      { id: 'a', additionalData: { old: true }, after: 1 },
      { id: 'b', note: 'says "additionalData": inside' },
      { id: 'c', nested: { x: [1, { y: null }] }, text: 'é\n' },
    ];
    for (const record of records) {
      const additionalData = { changes: { name: ['a', 'b'] } };
      const [row] = await sql(
        api,
        `SELECT (${envelopeSql({ id: '$1', event: '$2', createdAt: '$3', record: '$4::text', additionalData: '$5::text' })})::text AS payload`,
        [
          'evt_1',
          'thing.updated',
          '2026-01-02T03:04:05.678Z',
          JSON.stringify(record),
          JSON.stringify(additionalData),
        ],
      );
      const expected = {
        id: 'evt_1',
        api_version: 'v1',
        event: 'thing.updated',
        created_at: '2026-01-02T03:04:05.678Z',
        data: { id: record.uuid ?? record.id, ...record, additionalData },
      };
      expect(row.payload).toBe(JSON.stringify(expected));
    }
  });
});
