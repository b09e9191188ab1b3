import { createCompany, TestCompany } from './support/accounts';
import { http, HttpResult } from './support/http';
import { startApi, TestApi } from './support/test-app';
import { createEndpoint, sql, warehouse } from './support/webhooks';

const W = '/inventory/int/v1/warehouses';

/** What a stock Ember Data RESTAdapter/RESTSerializer needs, with no override written by hand. */
describe('stock Ember Data compatibility', () => {
  let api: TestApi;
  let acme: TestCompany;
  let call: (method: string, path: string, body?: unknown) => Promise<HttpResult>;

  beforeAll(async () => {
    api = await startApi();
    acme = await createCompany(api, 'Acme');
    call = (method, path, body) => http(api.url, method, path, { key: acme.key, body });
  });
  afterAll(() => api.close());

  const expectIds = (record: Record<string, any>) => {
    expect(record.id).toEqual(expect.stringMatching(/^[0-9a-f-]{36}$/));
    expect(record.id).toBe(record.uuid);
  };

  it('every record carries id = uuid: resources, embedded children, lists and management resources', async () => {
    const created = await call(
      'POST',
      W,
      warehouse('Main', {
        location: { name: 'HQ' },
        sections: [{ name: 'A' }],
        docks: [{ dock_number: 'D1' }],
      }),
    );
    expect(created.status).toBe(201);
    const record = created.body.warehouse;
    for (const each of [record, record.location, ...record.sections, ...record.docks]) expectIds(each);

    const listed = await call('GET', W);
    expect(listed.body.warehouses).toHaveLength(1);
    expectIds(listed.body.warehouses[0]);
    expectIds(listed.body.warehouses[0].sections[0]);
    // The existing grammar is untouched: uuid, root keys and meta.
    expect(listed.body.meta).toMatchObject({ total: 1, current_page: 1 });

    const { endpoint } = await createEndpoint(api, acme, 'http://127.0.0.1:9/hook');
    expectIds(endpoint);
    expectIds(
      (await call('GET', `/int/v1/webhook-endpoints/${endpoint.uuid as string}`)).body.webhook_endpoint,
    );
    const keys = await call('GET', '/int/v1/api-keys');
    expectIds(keys.body.api_keys[0]);
  });

  it('accepts id wherever uuid is accepted: embedded children are updated in place, not duplicated', async () => {
    const created = (
      await call(
        'POST',
        W,
        warehouse('Ids', { sections: [{ name: 'A' }, { name: 'B' }], location: { name: 'L' } }),
      )
    ).body.warehouse;
    const [a, b] = created.sections;
    // What EmbeddedRecordsMixin sends: existing children by `id`, a new one without.
    const updated = await call('PUT', `${W}/${created.id as string}`, {
      warehouse: {
        id: created.id,
        name: 'Ids',
        sections: [{ id: a.id, name: 'A renamed' }, { name: 'C' }],
        location: { id: created.location.id, name: 'L2' },
      },
    });
    expect(updated.status).toBe(200);
    const sections = updated.body.warehouse.sections;
    expect(sections.map((s: any) => s.name).sort()).toEqual(['A renamed', 'C']);
    expect(sections.find((s: any) => s.name === 'A renamed').uuid).toBe(a.uuid);
    expect(updated.body.warehouse.location).toMatchObject({ uuid: created.location.uuid, name: 'L2' });
    const rows = await sql(api, 'SELECT uuid, name FROM warehouse_sections WHERE warehouse_uuid = $1', [
      created.uuid,
    ]);
    expect(rows.map((row) => row.name).sort()).toEqual(['A renamed', 'C']);
    expect(rows.map((row) => row.uuid)).not.toContain(b.uuid);

    const mismatched = await call('PUT', `${W}/${created.id as string}`, {
      warehouse: { sections: [{ id: a.id, uuid: b.uuid, name: 'x' }] },
    });
    expect(mismatched.status).toBe(422);
    expect(mismatched.body.errors[0].source).toEqual({ pointer: '/data/attributes/sections/0/id' });
  });

  it('serves the camelCase plural a stock RESTAdapter requests as an alias', async () => {
    const parent = (await call('POST', W, warehouse('Alias'))).body.warehouse;
    const created = await call('POST', '/inventory/int/v1/warehouseSections', {
      warehouse_section: { warehouse_uuid: parent.uuid, name: 'Via alias' },
    });
    expect(created.status).toBe(201);
    expectIds(created.body.warehouse_section);
    const id = created.body.warehouse_section.id as string;
    const viaAlias = await call('GET', `/inventory/int/v1/warehouseSections/${id}`);
    const viaPath = await call('GET', `/inventory/int/v1/warehouse-sections/${id}`);
    expect(viaAlias.status).toBe(200);
    expect(viaAlias.body).toEqual(viaPath.body);
    const listed = await call(
      'GET',
      `/inventory/int/v1/warehouseSections?warehouse_uuid=${parent.uuid as string}`,
    );
    expect(listed.body.warehouse_sections.map((s: any) => s.id)).toEqual([id]);
    expect((await call('DELETE', `/inventory/int/v1/warehouseSections/${id}`)).status).toBe(200);
  });

  it('points validation errors at /data/attributes/<field>, one message per field problem', async () => {
    const res = await call('POST', W, {
      warehouse: {
        name: null,
        address: 'x',
        city: 'x',
        state: 'x',
        zip: 'x',
        capacity: 1,
        sections: [{ name: 'ok' }, { name: 'x'.repeat(300) }],
      },
    });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([
      expect.objectContaining({ detail: 'name is required.', source: { pointer: '/data/attributes/name' } }),
      expect.objectContaining({
        detail: expect.stringMatching(/^name must be shorter than or equal to 255 characters/),
        source: { pointer: '/data/attributes/sections/1/name' },
      }),
    ]);

    const missing = await call('POST', W, {
      warehouse: { address: 'x', city: 'x', state: 'x', zip: 'x', capacity: 1 },
    });
    expect(missing.body.errors).toEqual([
      expect.objectContaining({ detail: 'name is required.', source: { pointer: '/data/attributes/name' } }),
    ]);
    expect((await call('GET', W)).body.warehouses.map((w: any) => w.name)).not.toContain(null);
  });
});
