import { poolOf } from '@wharf/core';
import { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { createCompany, TestCompany } from './support/accounts';
import { http } from './support/http';
import { startApi, TestApi } from './support/test-app';

/** Reads are one statement each: a record with all its embeds, and a page of them with its total. */
describe('reads: one round trip', () => {
  let api: TestApi;
  let acme: TestCompany;
  let statements: string[] | undefined;
  let uuid: string;

  beforeAll(async () => {
    api = await startApi();
    acme = await createCompany(api);
    const pool: Pool = poolOf(api.app.get(DataSource));
    const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
    // Counts what reaches PostgreSQL through the pool; the database itself stays real.
    (pool as unknown as { query: unknown }).query = (...args: unknown[]) => {
      const config = args[0] as string | { text: string };
      statements?.push(typeof config === 'string' ? config : config.text);
      return query(...args);
    };
    for (const name of ['Alpha', 'Beta']) {
      const created = await http(api.url, 'POST', '/inventory/int/v1/warehouses', {
        key: acme.key,
        body: {
          name,
          address: '1 Quay',
          city: 'Porto',
          state: 'P',
          zip: '4000',
          capacity: 5,
          location: { name: `${name} site` },
          sections: [{ name: 'S1' }, { name: 'S2' }],
          docks: [{ dock_number: 'D1' }],
        },
      });
      expect(created.status).toBe(201);
      uuid = created.body.warehouse.uuid;
    }
  });
  afterAll(() => api.close());

  async function counted(path: string) {
    statements = [];
    const result = await http(api.url, 'GET', path, { key: acme.key });
    const sent = statements;
    statements = undefined;
    expect(result.status).toBe(200);
    return { body: result.body, sent };
  }

  it('serves one record with its location, sections and docks in one statement', async () => {
    const { body, sent } = await counted(`/inventory/int/v1/warehouses/${uuid}`);
    expect(sent).toHaveLength(1);
    expect(body.warehouse).toMatchObject({ name: 'Beta', location: { name: 'Beta site' } });
    expect(body.warehouse.sections.map((s: { name: string }) => s.name)).toEqual(['S1', 'S2']);
    expect(body.warehouse.docks.map((d: { dock_number: string }) => d.dock_number)).toEqual(['D1']);
    expect(body.warehouse.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('serves a page with embeds and its total in one statement, also past the last row', async () => {
    const { body, sent } = await counted('/inventory/int/v1/warehouses?sort=-name&limit=1');
    expect(sent).toHaveLength(1);
    expect(body.warehouses.map((w: { name: string }) => w.name)).toEqual(['Beta']);
    expect(body.warehouses[0].sections).toHaveLength(2);
    expect(body.meta).toMatchObject({ total: 2, last_page: 2, from: 1, to: 1 });

    const beyond = await counted('/inventory/int/v1/warehouses?page=5&limit=1');
    expect(beyond.sent).toHaveLength(1);
    expect(beyond.body.warehouses).toEqual([]);
    expect(beyond.body.meta).toMatchObject({ total: 2, from: null, to: null });
  });
});
