import { createCompany, TestCompany } from './support/accounts';
import { http } from './support/http';
import { startApi, TestApi } from './support/test-app';

describe('resources: smoke', () => {
  let api: TestApi;
  let acme: TestCompany;
  beforeAll(async () => {
    api = await startApi();
    acme = await createCompany(api);
  });
  afterAll(() => api.close());

  it('creates and reads a warehouse with embedded location, sections and docks', async () => {
    const created = await http(api.url, 'POST', '/inventory/int/v1/warehouses', {
      key: acme.key,
      body: {
        warehouse: {
          name: 'Main',
          address: '1 Dock St',
          city: 'Austin',
          state: 'TX',
          zip: '78701',
          capacity: 100,
          location: { name: 'HQ' },
          sections: [{ name: 'A' }],
          docks: [{ dock_number: 'D1' }],
        },
      },
    });
    expect(created.status).toBe(201);
    const warehouse = created.body.warehouse;
    expect(warehouse).toMatchObject({
      name: 'Main',
      capacity: 100,
      is_primary: false,
      company_uuid: acme.uuid,
    });
    expect(warehouse.id).toBe(warehouse.uuid); // id repeats uuid for generic clients (Ember Data)
    const read = await http(api.url, 'GET', `/inventory/int/v1/warehouses/${warehouse.uuid}`, {
      key: acme.key,
    });
    expect(read.body.warehouse.location.name).toBe('HQ');
    expect(read.body.warehouse.sections.map((s: any) => s.name)).toEqual(['A']);
    expect(read.body.warehouse.docks.map((d: any) => d.dock_number)).toEqual(['D1']);
  });
});
