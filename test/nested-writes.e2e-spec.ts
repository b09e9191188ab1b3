import { Client } from 'pg';
import { TestCompany, createCompany } from './support/accounts';
import { dbState, pointerField } from './support/db-state';
import { http } from './support/http';
import { TestApi, startApi } from './support/test-app';
import { sql, warehouse } from './support/webhooks';

const W = '/inventory/int/v1/warehouses';

const sections = (n: number, prefix = 'S') =>
  Array.from({ length: n }, (_, i) => ({ name: `${prefix}${i}`, description: `d${i}` }));
const docks = (n: number) => Array.from({ length: n }, (_, i) => ({ dock_number: `D${i}`, capacity: i }));

describe('nested writes: bounded and set-based', () => {
  let api: TestApi;
  let acme: TestCompany;
  let statements: jest.SpyInstance;

  /** Statements sent to PostgreSQL (by any pg client of this process) while `work` runs. */
  async function countStatements<T>(work: () => Promise<T>): Promise<{ count: number; result: T }> {
    statements.mockClear();
    const result = await work();
    // The api key's last_used_at is written off the request path, at most once a minute, and the relay's
    // wake-up after the response on a connection of its own: neither is the write's.
    const count = statements.mock.calls.filter(([query]) => {
      const text = JSON.stringify(query);
      return !text.includes('api_keys') && !text.includes('NOTIFY wharf_webhook_events');
    }).length;
    return { count, result };
  }
  const call = (method: string, path: string, body?: unknown) =>
    http(api.url, method, path, { key: acme.key, body });
  const events = async (warehouseUuid: string) =>
    (
      await sql(
        api,
        `SELECT name, payload->'data'->>'name' AS record FROM webhook_events
         WHERE company_uuid = $1 AND (payload->'data'->>'warehouse_uuid' = $2 OR payload->'data'->>'uuid' = $2)
         ORDER BY id`,
        [acme.uuid, warehouseUuid],
      )
    ).map((row: { name: string; record: string }) => `${row.name} ${row.record}`);

  beforeAll(async () => {
    api = await startApi({ env: { RATE_LIMIT_PER_MINUTE: '100000' } });
    acme = await createCompany(api, 'Nested');
    statements = jest.spyOn(Client.prototype, 'query');
  });
  afterAll(async () => {
    statements.mockRestore();
    await api.close();
  });

  it('a create sends the same number of statements for 2 or 100 sections and docks, and every child is an event', async () => {
    const small = await countStatements(() =>
      call('POST', W, warehouse('Small', { sections: sections(2), docks: docks(2) })),
    );
    const large = await countStatements(() =>
      call('POST', W, warehouse('Large', { sections: sections(100), docks: docks(100) })),
    );
    expect(small.result.status).toBe(201);
    expect(large.result.status).toBe(201);
    expect(large.result.body.warehouse.sections.map((s: { name: string }) => s.name)).toEqual(
      sections(100).map((s) => s.name),
    );
    expect(large.count).toBe(small.count);
    const created = await events(large.result.body.warehouse.uuid);
    expect(created.filter((e) => e.startsWith('warehouse_section.created'))).toHaveLength(100);
    expect(created.filter((e) => e.startsWith('warehouse_dock.created'))).toHaveLength(100);
  });

  it('an update that changes, keeps, creates and deletes children: constant statements, one event per change in list order', async () => {
    const { body } = await call('POST', W, warehouse('Mixed', { sections: sections(4) }));
    const [s0, s1, s2, s3] = body.warehouse.sections as { uuid: string; name: string }[];
    const before = await events(body.warehouse.uuid);
    const update = (rename: string, extra: number) =>
      call('PATCH', `${W}/${body.warehouse.uuid}`, {
        sections: [
          { uuid: s0.uuid, name: rename },
          { name: `New${extra}` },
          { uuid: s1.uuid, name: s1.name },
          { uuid: s2.uuid, description: 'changed' },
          ...sections(extra, `Extra${extra}-`),
        ],
      });
    const first = await countStatements(() => update('Renamed', 1));
    expect(first.result.status).toBe(200);
    expect((await events(body.warehouse.uuid)).slice(before.length)).toEqual([
      'warehouse_section.updated Renamed',
      'warehouse_section.created New1',
      'warehouse_section.updated S2',
      'warehouse_section.created Extra1-0',
      'warehouse_section.deleted S3',
      'warehouse.updated Mixed',
    ]);
    expect(first.result.body.warehouse.sections.map((s: { name: string }) => s.name)).not.toContain(s3.name);

    // Same shape with 50 more new children and a renamed child again: the same number of statements.
    const { body: again } = await call('POST', W, warehouse('Mixed2', { sections: sections(4) }));
    const [t0, t1, t2] = again.warehouse.sections as { uuid: string; name: string }[];
    const second = await countStatements(() =>
      call('PATCH', `${W}/${again.warehouse.uuid}`, {
        sections: [
          { uuid: t0.uuid, name: 'Renamed' },
          { name: 'New' },
          { uuid: t1.uuid, name: t1.name },
          { uuid: t2.uuid, description: 'changed' },
          ...sections(51, 'Extra-'),
        ],
      }),
    );
    expect(second.result.status).toBe(200);
    expect(second.count).toBe(first.count);
  });

  it('more than 100 items in an embedded list: 422 pointing at the list, nothing written', async () => {
    const state = await dbState(api);
    const response = await call('POST', W, warehouse('TooMany', { sections: sections(101) }));
    expect(response.status).toBe(422);
    expect(pointerField(response.body.errors[0].source.pointer)).toBe('sections');
    expect(response.body.errors[0].detail).toMatch(/at most 100 items/);
    expect(await dbState(api)).toEqual(state);
  });

  it('references of many children are checked together and a bad one is a 422 at its item', async () => {
    const response = await call('POST', W, {
      warehouse: {
        ...warehouse('Refs').warehouse,
        location_uuid: '00000000-0000-4000-8000-000000000000',
      },
    });
    expect(response.status).toBe(422);
    expect(pointerField(response.body.errors[0].source.pointer)).toBe('location_uuid');
  });
});
