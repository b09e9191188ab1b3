import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { createCompany, TestCompany } from './support/accounts';
import { http, HttpResult } from './support/http';
import { startApi, TestApi } from './support/test-app';

const W = '/inventory/int/v1/warehouses';
const S = '/inventory/int/v1/warehouse-sections';
const D = '/inventory/int/v1/warehouse-docks';
const L = '/int/v1/locations';
const TABLES = ['locations', 'warehouses', 'warehouse_sections', 'warehouse_docks'];
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const warehouseAttrs = (overrides: Record<string, unknown> = {}) => ({
  name: 'Main',
  address: '1 Dock St',
  city: 'Austin',
  state: 'TX',
  zip: '78701',
  capacity: 100,
  ...overrides,
});

describe('resources: the five routes, nested writes and validation', () => {
  let api: TestApi;
  let db: DataSource;
  let acme: TestCompany;
  let other: TestCompany;

  const as =
    (company: TestCompany) =>
    (method: string, path: string, body?: unknown): Promise<HttpResult> =>
      http(api.url, method, path, { key: company.key, body });
  let call: ReturnType<typeof as>;
  let callOther: ReturnType<typeof as>;

  /** Every row of every resource table (all companies), to prove a rejected request wrote nothing. */
  async function snapshot() {
    const state: Record<string, unknown> = {};
    for (const table of TABLES) {
      const [row] = await db.query(
        `SELECT count(*)::int AS n, md5(coalesce(string_agg(t::text, '|' ORDER BY t.id), '')) AS hash FROM "${table}" t`,
      );
      state[table] = row;
    }
    return state;
  }

  async function expectNothingWritten(request: () => Promise<HttpResult>, status: number) {
    const before = await snapshot();
    const res = await request();
    expect({ status: res.status, body: res.body }).toEqual({ status, body: expect.anything() });
    expect(await snapshot()).toEqual(before);
    return res;
  }

  function expect422(res: HttpResult, pointers: string[]) {
    expect(res.status).toBe(422);
    expect(res.body.errors.length).toBeGreaterThanOrEqual(1);
    for (const error of res.body.errors) {
      expect(error).toMatchObject({
        status: '422',
        code: 'invalid',
        title: expect.any(String),
        detail: expect.any(String),
        source: { pointer: expect.stringMatching(/^\//) },
      });
    }
    const found = res.body.errors.map((error: any) => error.source.pointer);
    for (const pointer of pointers) expect(found).toContain(pointer);
  }

  function expect404(res: HttpResult) {
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      errors: [expect.objectContaining({ status: '404', code: 'not_found', detail: expect.any(String) })],
    });
  }

  async function createWarehouse(attrs: Record<string, unknown> = {}, company = acme) {
    const res = await as(company)('POST', W, { warehouse: warehouseAttrs(attrs) });
    expect(res.status).toBe(201);
    return res.body.warehouse;
  }

  beforeAll(async () => {
    api = await startApi();
    db = api.app.get(DataSource);
    acme = await createCompany(api, 'Acme');
    other = await createCompany(api, 'Other');
    call = as(acme);
    callOther = as(other);
  });
  afterAll(() => api.close());

  describe('all five routes (+PATCH), Ember and flat bodies', () => {
    let parent: any;
    beforeAll(async () => {
      parent = await createWarehouse({ name: 'Parent' });
    });

    const resources = () => [
      {
        path: L,
        singular: 'location',
        plural: 'locations',
        create: {
          name: 'HQ',
          street: '1 Main St',
          city: 'Austin',
          country: 'US',
          latitude: 30.27,
          longitude: -97.74,
        },
        flat: { name: 'Depot', latitude: -33.5, longitude: 151 },
        put: { city: 'Dallas', latitude: 32.78 },
        patch: { name: 'HQ 2', longitude: -96.8 },
      },
      {
        path: W,
        singular: 'warehouse',
        plural: 'warehouses',
        create: warehouseAttrs({ name: 'North', is_primary: true }),
        flat: warehouseAttrs({ name: 'South', capacity: 0 }),
        put: { city: 'Houston', capacity: 250 },
        patch: { name: 'North 2', is_primary: false },
      },
      {
        path: S,
        singular: 'warehouse_section',
        plural: 'warehouse_sections',
        create: { warehouse_uuid: parent.uuid, name: 'Aisle 1', description: 'Cold' },
        flat: { warehouse_uuid: parent.uuid, name: 'Aisle 2' },
        put: { description: 'Frozen' },
        patch: { name: 'Aisle 1b' },
      },
      {
        path: D,
        singular: 'warehouse_dock',
        plural: 'warehouse_docks',
        create: { warehouse_uuid: parent.uuid, dock_number: 'D1', direction: 'inbound', capacity: 4 },
        flat: { warehouse_uuid: parent.uuid, dock_number: 'D2' },
        put: { status: 'maintenance', capacity: 0 },
        patch: { dock_number: 'D1b', direction: 'outbound' },
      },
    ];

    it.each(['location', 'warehouse', 'warehouse_section', 'warehouse_dock'])('%s', async (name) => {
      const r = resources().find((resource) => resource.singular === name)!;

      // POST, Ember body
      const created = await call('POST', r.path, { [r.singular]: r.create });
      expect(created.status).toBe(201);
      expect(Object.keys(created.body)).toEqual([r.singular]);
      const record = created.body[r.singular];
      expect(record).toMatchObject({ ...r.create, company_uuid: acme.uuid });
      expect(record.uuid).toMatch(/^[0-9a-f-]{36}$/);
      expect(record.created_at).toMatch(ISO);
      expect(record.updated_at).toMatch(ISO);
      expect(record.id).toBe(record.uuid); // what stock Ember Data reads as the primary key

      // POST, flat body
      const flat = await call('POST', r.path, r.flat);
      expect(flat.status).toBe(201);
      expect(flat.body[r.singular]).toMatchObject({ ...r.flat, company_uuid: acme.uuid });

      // GET one
      const read = await call('GET', `${r.path}/${record.uuid}`);
      expect(read.status).toBe(200);
      expect(read.body).toEqual({ [r.singular]: record });

      // GET list
      const list = await call('GET', r.path);
      expect(list.status).toBe(200);
      expect(Object.keys(list.body).sort()).toEqual([r.plural, 'meta'].sort());
      const uuids = list.body[r.plural].map((item: any) => item.uuid);
      expect(uuids).toEqual(expect.arrayContaining([record.uuid, flat.body[r.singular].uuid]));
      expect(list.body.meta).toEqual({
        total: uuids.length,
        total_exact: true,
        per_page: 30,
        current_page: 1,
        last_page: 1,
        from: 1,
        to: uuids.length,
        next_cursor: null,
      });
      expect(list.body[r.plural].find((item: any) => item.uuid === record.uuid)).toEqual(record);

      // PUT, Ember body
      const put = await call('PUT', `${r.path}/${record.uuid}`, { [r.singular]: r.put });
      expect(put.status).toBe(200);
      expect(Object.keys(put.body)).toEqual([r.singular]);
      expect(put.body[r.singular]).toMatchObject({ ...r.create, ...r.put, uuid: record.uuid });
      expect(put.body[r.singular].created_at).toBe(record.created_at);

      // PATCH, flat body
      const patch = await call('PATCH', `${r.path}/${record.uuid}`, r.patch);
      expect(patch.status).toBe(200);
      const last = patch.body[r.singular];
      expect(last).toMatchObject({ ...r.create, ...r.put, ...r.patch, uuid: record.uuid });
      expect((await call('GET', `${r.path}/${record.uuid}`)).body).toEqual({ [r.singular]: last });

      // DELETE returns the last state with 200, then the record is gone
      const removed = await call('DELETE', `${r.path}/${record.uuid}`);
      expect(removed.status).toBe(200);
      expect(removed.body).toEqual({ [r.singular]: last });
      expect404(await call('GET', `${r.path}/${record.uuid}`));
      expect404(await call('PUT', `${r.path}/${record.uuid}`, r.put));
      expect404(await call('DELETE', `${r.path}/${record.uuid}`));
      const after = await call('GET', r.path);
      expect(after.body[r.plural].map((item: any) => item.uuid)).not.toContain(record.uuid);
      expect(after.body.meta.total).toBe(uuids.length - 1);
    });

    it('sections and docks created through their own routes are embedded in their warehouse', async () => {
      const warehouse = await createWarehouse({ name: 'Embedding' });
      const section = (
        await call('POST', S, { warehouse_section: { warehouse_uuid: warehouse.uuid, name: 'S' } })
      ).body.warehouse_section;
      const dock = (
        await call('POST', D, { warehouse_dock: { warehouse_uuid: warehouse.uuid, dock_number: '7' } })
      ).body.warehouse_dock;
      expect(dock).toMatchObject({ direction: 'both', status: 'available', capacity: null });
      const read = (await call('GET', `${W}/${warehouse.uuid}`)).body.warehouse;
      expect(read.sections).toEqual([section]);
      expect(read.docks).toEqual([dock]);
    });

    it('a section or dock needs an existing warehouse of the company', async () => {
      const theirs = await createWarehouse({ name: 'Theirs' }, other);
      await expectNothingWritten(async () => {
        const res = await call('POST', S, { warehouse_section: { name: 'orphan' } });
        expect422(res, ['/data/attributes/warehouse_uuid']);
        return res;
      }, 422);
      await expectNothingWritten(async () => {
        const res = await call('POST', S, { warehouse_section: { warehouse_uuid: theirs.uuid, name: 'S' } });
        expect422(res, ['/data/attributes/warehouse_uuid']);
        return res;
      }, 422);
      await expectNothingWritten(async () => {
        const res = await call('POST', D, {
          warehouse_dock: { warehouse_uuid: randomUUID(), dock_number: '1' },
        });
        expect422(res, ['/data/attributes/warehouse_uuid']);
        return res;
      }, 422);
      const mine = (
        await call('POST', S, { warehouse_section: { warehouse_uuid: parent.uuid, name: 'Mine' } })
      ).body.warehouse_section;
      await expectNothingWritten(async () => {
        const res = await call('PATCH', `${S}/${mine.uuid}`, { warehouse_uuid: theirs.uuid });
        expect422(res, ['/data/attributes/warehouse_uuid']);
        return res;
      }, 422);
    });
  });

  describe('embedded relationships and nested writes', () => {
    it('a warehouse read and list embed location, sections and docks', async () => {
      const created = await call('POST', W, {
        warehouse: warehouseAttrs({
          name: 'Embedded',
          location: { name: 'HQ', city: 'Austin', latitude: 30.27, longitude: -97.74 },
          sections: [{ name: 'A', description: 'first' }, { name: 'B' }],
          docks: [{ dock_number: 'D1', direction: 'inbound', capacity: 3 }, { dock_number: 'D2' }],
        }),
      });
      expect(created.status).toBe(201);
      const warehouse = created.body.warehouse;
      expect(warehouse.location).toEqual({
        id: warehouse.location_uuid,
        uuid: warehouse.location_uuid,
        company_uuid: acme.uuid,
        name: 'HQ',
        street: null,
        city: 'Austin',
        state: null,
        zip: null,
        country: null,
        latitude: 30.27,
        longitude: -97.74,
        created_at: expect.stringMatching(ISO),
        updated_at: expect.stringMatching(ISO),
      });
      expect(warehouse.sections).toEqual([
        expect.objectContaining({ name: 'A', description: 'first', warehouse_uuid: warehouse.uuid }),
        expect.objectContaining({ name: 'B', description: null, warehouse_uuid: warehouse.uuid }),
      ]);
      expect(warehouse.docks).toEqual([
        expect.objectContaining({
          dock_number: 'D1',
          direction: 'inbound',
          capacity: 3,
          status: 'available',
        }),
        expect.objectContaining({
          dock_number: 'D2',
          direction: 'both',
          capacity: null,
          status: 'available',
        }),
      ]);
      for (const child of [...warehouse.sections, ...warehouse.docks]) {
        expect(child).toMatchObject({ warehouse_uuid: warehouse.uuid, company_uuid: acme.uuid });
        expect(child.id).toBe(child.uuid);
      }
      expect(warehouse.location.id).toBe(warehouse.location.uuid);

      const read = await call('GET', `${W}/${warehouse.uuid}`);
      expect(read.body).toEqual({ warehouse });
      const list = await call('GET', `${W}?uuid=${warehouse.uuid}`);
      expect(list.body.warehouses).toEqual([warehouse]);

      // the children are real records of their own resources
      expect((await call('GET', `${L}/${warehouse.location_uuid}`)).body.location).toEqual(
        warehouse.location,
      );
      expect((await call('GET', `${S}/${warehouse.sections[0].uuid}`)).body.warehouse_section).toEqual(
        warehouse.sections[0],
      );
      expect((await call('GET', `${D}/${warehouse.docks[1].uuid}`)).body.warehouse_dock).toEqual(
        warehouse.docks[1],
      );
    });

    it('a warehouse without relations embeds null and empty lists', async () => {
      const warehouse = await createWarehouse({ name: 'Bare' });
      expect(warehouse).toMatchObject({ location_uuid: null, location: null, sections: [], docks: [] });
    });

    it('updating with changed lists creates, updates and deletes children', async () => {
      const created = (
        await call('POST', W, {
          warehouse: warehouseAttrs({
            name: 'Sync',
            location: { name: 'Yard' },
            sections: [{ name: 'A' }, { name: 'B' }],
            docks: [{ dock_number: 'D1' }, { dock_number: 'D2' }],
          }),
        })
      ).body.warehouse;
      const [a, b] = created.sections;
      const [d1, d2] = created.docks;

      const res = await call('PUT', `${W}/${created.uuid}`, {
        warehouse: {
          name: 'Sync 2',
          sections: [
            { uuid: a.uuid, name: 'A renamed' },
            { name: 'C', description: 'new' },
          ],
          docks: [
            { uuid: d2.uuid, status: 'occupied' },
            { dock_number: 'D3', direction: 'outbound' },
          ],
        },
      });
      expect(res.status).toBe(200);
      const updated = res.body.warehouse;
      expect(updated.name).toBe('Sync 2');
      expect(updated.sections).toEqual([
        { ...a, name: 'A renamed', updated_at: expect.stringMatching(ISO) },
        expect.objectContaining({ name: 'C', description: 'new', warehouse_uuid: created.uuid }),
      ]);
      expect(updated.sections[1].uuid).not.toBe(b.uuid);
      expect(updated.docks).toEqual([
        { ...d2, status: 'occupied', updated_at: expect.stringMatching(ISO) },
        expect.objectContaining({ dock_number: 'D3', direction: 'outbound', warehouse_uuid: created.uuid }),
      ]);
      expect(updated.location).toEqual(created.location);

      // the removed children are deleted, not just detached
      expect404(await call('GET', `${S}/${b.uuid}`));
      expect404(await call('GET', `${D}/${d1.uuid}`));
      const [{ n: sections }] = await db.query(
        'SELECT count(*)::int AS n FROM warehouse_sections WHERE warehouse_uuid = $1',
        [created.uuid],
      );
      const [{ n: docks }] = await db.query(
        'SELECT count(*)::int AS n FROM warehouse_docks WHERE warehouse_uuid = $1',
        [created.uuid],
      );
      expect({ sections, docks }).toEqual({ sections: 2, docks: 2 });
      expect((await call('GET', `${W}/${created.uuid}`)).body.warehouse).toEqual(updated);

      // without the arrays the children stay; with empty arrays they all go
      const untouched = await call('PATCH', `${W}/${created.uuid}`, { capacity: 7 });
      expect(untouched.body.warehouse).toMatchObject({
        capacity: 7,
        sections: updated.sections,
        docks: updated.docks,
      });
      const emptied = await call('PATCH', `${W}/${created.uuid}`, { sections: [], docks: [] });
      expect(emptied.status).toBe(200);
      expect(emptied.body.warehouse).toMatchObject({ sections: [], docks: [] });
      const [{ n: left }] = await db.query(
        'SELECT (SELECT count(*) FROM warehouse_sections WHERE warehouse_uuid = $1)::int + (SELECT count(*) FROM warehouse_docks WHERE warehouse_uuid = $1)::int AS n',
        [created.uuid],
      );
      expect(left).toBe(0);
    });

    it('writes the location as an embedded object (create, update by uuid, unlink) or by location_uuid', async () => {
      const warehouse = (await call('POST', W, { warehouse: warehouseAttrs({ location: { name: 'L1' } }) }))
        .body.warehouse;
      const l1 = warehouse.location;

      const renamed = await call('PUT', `${W}/${warehouse.uuid}`, {
        warehouse: { location: { uuid: l1.uuid, name: 'L1 renamed', city: 'Reno' } },
      });
      expect(renamed.status).toBe(200);
      expect(renamed.body.warehouse.location).toMatchObject({
        uuid: l1.uuid,
        name: 'L1 renamed',
        city: 'Reno',
      });
      expect(renamed.body.warehouse.location_uuid).toBe(l1.uuid);

      const replaced = await call('PUT', `${W}/${warehouse.uuid}`, {
        warehouse: { location: { name: 'L2' } },
      });
      const l2 = replaced.body.warehouse.location;
      expect(l2.name).toBe('L2');
      expect(l2.uuid).not.toBe(l1.uuid);
      expect((await call('GET', `${L}/${l1.uuid}`)).status).toBe(200);

      const unlinked = await call('PUT', `${W}/${warehouse.uuid}`, { warehouse: { location: null } });
      expect(unlinked.body.warehouse).toMatchObject({ location_uuid: null, location: null });

      const linked = await call('PUT', `${W}/${warehouse.uuid}`, { warehouse: { location_uuid: l1.uuid } });
      expect(linked.body.warehouse.location).toMatchObject({ uuid: l1.uuid, name: 'L1 renamed' });

      // deleting the location leaves the warehouse without one
      expect((await call('DELETE', `${L}/${l1.uuid}`)).status).toBe(200);
      expect((await call('GET', `${W}/${warehouse.uuid}`)).body.warehouse).toMatchObject({
        location_uuid: null,
        location: null,
      });
    });

    it('delete returns the warehouse with its children and removes them too', async () => {
      const warehouse = (
        await call('POST', W, {
          warehouse: warehouseAttrs({
            name: 'Doomed',
            sections: [{ name: 'S' }],
            docks: [{ dock_number: 'D' }],
          }),
        })
      ).body.warehouse;
      const removed = await call('DELETE', `${W}/${warehouse.uuid}`);
      expect(removed.status).toBe(200);
      expect(removed.body).toEqual({ warehouse });
      expect404(await call('GET', `${W}/${warehouse.uuid}`));
      expect404(await call('GET', `${S}/${warehouse.sections[0].uuid}`));
      expect404(await call('GET', `${D}/${warehouse.docks[0].uuid}`));
    });

    it('a child uuid of another warehouse or company is 422 and nothing changes', async () => {
      const mine = (
        await call('POST', W, {
          warehouse: warehouseAttrs({
            name: 'Mine',
            sections: [{ name: 'M1' }],
            docks: [{ dock_number: 'M1' }],
          }),
        })
      ).body.warehouse;
      const sibling = (
        await call('POST', W, {
          warehouse: warehouseAttrs({
            name: 'Sibling',
            location: { name: 'Sib' },
            sections: [{ name: 'S1' }],
            docks: [{ dock_number: 'S1' }],
          }),
        })
      ).body.warehouse;
      const theirs = (
        await callOther('POST', W, {
          warehouse: warehouseAttrs({
            name: 'Theirs',
            location: { name: 'Their HQ' },
            sections: [{ name: 'T1' }],
            docks: [{ dock_number: 'T1' }],
          }),
        })
      ).body.warehouse;

      const attempts: [string, unknown, string][] = [
        [
          'PUT',
          {
            warehouse: {
              name: 'Changed',
              sections: [{ name: 'new' }, { uuid: sibling.sections[0].uuid, name: 'x' }],
            },
          },
          '/data/attributes/sections/1/uuid',
        ],
        ['PUT', { warehouse: { docks: [{ uuid: sibling.docks[0].uuid }] } }, '/data/attributes/docks/0/uuid'],
        [
          'PATCH',
          { sections: [{ uuid: theirs.sections[0].uuid, name: 'x' }] },
          '/data/attributes/sections/0/uuid',
        ],
        [
          'PATCH',
          { docks: [{ uuid: theirs.docks[0].uuid, dock_number: 'x' }] },
          '/data/attributes/docks/0/uuid',
        ],
        ['PATCH', { sections: [{ uuid: randomUUID(), name: 'x' }] }, '/data/attributes/sections/0/uuid'],
        [
          'PATCH',
          { sections: [{ uuid: mine.sections[0].uuid }, { uuid: mine.sections[0].uuid, name: 'twice' }] },
          '/data/attributes/sections/1/uuid',
        ],
        [
          'PATCH',
          { location: { uuid: theirs.location_uuid, name: 'stolen' } },
          '/data/attributes/location/uuid',
        ],
        ['PATCH', { location_uuid: theirs.location_uuid }, '/data/attributes/location_uuid'],
        ['PATCH', { location_uuid: randomUUID() }, '/data/attributes/location_uuid'],
      ];
      for (const [method, body, pointer] of attempts) {
        await expectNothingWritten(async () => {
          const res = await call(method, `${W}/${mine.uuid}`, body);
          expect422(res, [pointer]);
          return res;
        }, 422);
      }
      // a new warehouse may not adopt children either
      await expectNothingWritten(async () => {
        const res = await call('POST', W, {
          warehouse: warehouseAttrs({
            name: 'Adopter',
            sections: [{ uuid: sibling.sections[0].uuid, name: 'x' }],
          }),
        });
        expect422(res, ['/data/attributes/sections/0/uuid']);
        return res;
      }, 422);

      expect((await call('GET', `${W}/${mine.uuid}`)).body.warehouse).toEqual(mine);
      expect((await call('GET', `${W}/${sibling.uuid}`)).body.warehouse).toEqual(sibling);
      expect((await callOther('GET', `${W}/${theirs.uuid}`)).body.warehouse).toEqual(theirs);
    });

    it("another company's records are 404 and invisible", async () => {
      const theirs = await createWarehouse({ name: 'Private' }, other);
      for (const [method, body] of [
        ['GET', undefined],
        ['PUT', { name: 'x' }],
        ['PATCH', { name: 'x' }],
        ['DELETE', undefined],
      ] as const) {
        expect404(await expectNothingWritten(() => call(method, `${W}/${theirs.uuid}`, body), 404));
      }
      const list = await call('GET', `${W}?limit=100`);
      expect(list.body.warehouses.every((w: any) => w.company_uuid === acme.uuid)).toBe(true);
      expect((await call('GET', `${W}?name=Private`)).body).toMatchObject({
        warehouses: [],
        meta: { total: 0 },
      });
    });
  });

  describe('read-only fields and casting', () => {
    it('echoing a read back (uuid, company_uuid, timestamps, embedded records) changes nothing', async () => {
      const warehouse = (
        await call('POST', W, {
          warehouse: warehouseAttrs({
            name: 'Echo',
            location: { name: 'Echo HQ' },
            sections: [{ name: 'E1' }],
            docks: [{ dock_number: 'E1' }],
          }),
        })
      ).body.warehouse;
      const before = await snapshot();
      for (const method of ['PUT', 'PATCH']) {
        const res = await call(method, `${W}/${warehouse.uuid}`, { warehouse });
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ warehouse });
      }
      expect(await snapshot()).toEqual(before);
    });

    it('ignores uuid, company_uuid and timestamps a client sends', async () => {
      const foreignUuid = randomUUID();
      const created = await call('POST', W, {
        warehouse: warehouseAttrs({
          name: 'Sneaky',
          id: 1,
          uuid: foreignUuid,
          company_uuid: other.uuid,
          created_at: '2000-01-01T00:00:00.000Z',
          updated_at: '2000-01-01T00:00:00.000Z',
        }),
      });
      expect(created.status).toBe(201);
      const warehouse = created.body.warehouse;
      expect(warehouse.uuid).not.toBe(foreignUuid);
      expect(warehouse.company_uuid).toBe(acme.uuid);
      expect(warehouse.created_at.startsWith('2000')).toBe(false);
      expect(warehouse.updated_at.startsWith('2000')).toBe(false);
      expect404(await call('GET', `${W}/${foreignUuid}`));

      const updated = await call('PUT', `${W}/${warehouse.uuid}`, {
        warehouse: {
          name: 'Sneaky 2',
          uuid: foreignUuid,
          company_uuid: other.uuid,
          created_at: '2000-01-01T00:00:00.000Z',
          updated_at: '2000-01-01T00:00:00.000Z',
        },
      });
      expect(updated.status).toBe(200);
      expect(updated.body.warehouse).toMatchObject({
        uuid: warehouse.uuid,
        company_uuid: acme.uuid,
        name: 'Sneaky 2',
        created_at: warehouse.created_at,
      });
      expect(updated.body.warehouse.updated_at.startsWith('2000')).toBe(false);
      expect404(await call('GET', `${W}/${foreignUuid}`));
      expect404(await callOther('GET', `${W}/${warehouse.uuid}`));
      const [row] = await db.query('SELECT company_uuid, name FROM warehouses WHERE uuid = $1', [
        warehouse.uuid,
      ]);
      expect(row).toEqual({ company_uuid: acme.uuid, name: 'Sneaky 2' });
    });

    it('capacity round-trips as an integer and is_primary as a boolean, default false', async () => {
      const plain = await createWarehouse({ name: 'Cast', capacity: 0 });
      expect(plain.capacity).toBe(0);
      expect(plain.is_primary).toBe(false);
      const [row] = await db.query('SELECT capacity, is_primary FROM warehouses WHERE uuid = $1', [
        plain.uuid,
      ]);
      expect(row).toEqual({ capacity: 0, is_primary: false });

      const primary = await createWarehouse({ name: 'Cast 2', capacity: 2147483647, is_primary: true });
      expect(primary).toMatchObject({ capacity: 2147483647, is_primary: true });
      const read = (await call('GET', `${W}/${primary.uuid}`)).body.warehouse;
      expect(typeof read.capacity).toBe('number');
      expect(read.is_primary).toBe(true);

      const listed = (await call('GET', `${W}?uuid_in=${plain.uuid},${primary.uuid}&sort=capacity`)).body
        .warehouses;
      expect(listed.map((w: any) => [w.capacity, w.is_primary])).toEqual([
        [0, false],
        [2147483647, true],
      ]);

      const flipped = await call('PATCH', `${W}/${primary.uuid}`, { is_primary: false, capacity: 12 });
      expect(flipped.body.warehouse).toMatchObject({ is_primary: false, capacity: 12 });
      const raw = await http(api.url, 'GET', `${W}/${primary.uuid}`, { key: acme.key });
      expect(raw.text).toContain('"capacity":12');
      expect(raw.text).toContain('"is_primary":false');
    });
  });

  describe('validation: 422 with a pointer, nothing written', () => {
    let existing: any;
    beforeAll(async () => {
      existing = (
        await call('POST', W, {
          warehouse: warehouseAttrs({
            name: 'Valid',
            sections: [{ name: 'V' }],
            docks: [{ dock_number: 'V' }],
          }),
        })
      ).body.warehouse;
    });

    const cases: [string, () => [string, string, unknown], string[]][] = [
      [
        'missing required fields on create',
        () => ['POST', W, { warehouse: { name: 'Incomplete' } }],
        [
          '/data/attributes/address',
          '/data/attributes/city',
          '/data/attributes/state',
          '/data/attributes/zip',
          '/data/attributes/capacity',
        ],
      ],
      ['an empty create body', () => ['POST', W, {}], ['/data/attributes/name', '/data/attributes/capacity']],
      [
        'a required field set to null on update',
        () => ['PUT', `${W}/${existing.uuid}`, { name: null }],
        ['/data/attributes/name'],
      ],
      [
        'capacity "ten"',
        () => ['POST', W, { warehouse: warehouseAttrs({ capacity: 'ten' }) }],
        ['/data/attributes/capacity'],
      ],
      [
        'capacity "10" (a string)',
        () => ['POST', W, warehouseAttrs({ capacity: '10' })],
        ['/data/attributes/capacity'],
      ],
      ['capacity 10.5', () => ['POST', W, warehouseAttrs({ capacity: 10.5 })], ['/data/attributes/capacity']],
      ['capacity -1', () => ['POST', W, warehouseAttrs({ capacity: -1 })], ['/data/attributes/capacity']],
      [
        'capacity beyond a 32-bit integer',
        () => ['POST', W, warehouseAttrs({ capacity: 2147483648 })],
        ['/data/attributes/capacity'],
      ],
      [
        'is_primary "yes"',
        () => ['POST', W, { warehouse: warehouseAttrs({ is_primary: 'yes' }) }],
        ['/data/attributes/is_primary'],
      ],
      [
        'capacity "ten" and is_primary "yes" on update',
        () => ['PUT', `${W}/${existing.uuid}`, { warehouse: { capacity: 'ten', is_primary: 'yes' } }],
        ['/data/attributes/capacity', '/data/attributes/is_primary'],
      ],
      [
        'a name of 256 characters',
        () => ['POST', W, { warehouse: warehouseAttrs({ name: 'n'.repeat(256) }) }],
        ['/data/attributes/name'],
      ],
      [
        'a zip of 256 characters on update',
        () => ['PATCH', `${W}/${existing.uuid}`, { zip: '9'.repeat(256) }],
        ['/data/attributes/zip'],
      ],
      [
        'an unknown field',
        () => ['POST', W, { warehouse: warehouseAttrs({ colour: 'red' }) }],
        ['/data/attributes/colour'],
      ],
      [
        'an unknown field in a flat body',
        () => ['POST', W, warehouseAttrs({ password: 'x' })],
        ['/data/attributes/password'],
      ],
      [
        'an unknown field on update',
        () => ['PUT', `${W}/${existing.uuid}`, { warehouse: { colour: 'red' } }],
        ['/data/attributes/colour'],
      ],
      [
        'a malformed location_uuid',
        () => ['POST', W, warehouseAttrs({ location_uuid: 'nope' })],
        ['/data/attributes/location_uuid'],
      ],
      [
        'an invalid nested section',
        () => [
          'POST',
          W,
          warehouseAttrs({ sections: [{ name: 'ok' }, { name: 's'.repeat(256), colour: 'red' }] }),
        ],
        ['/data/attributes/sections/1/name', '/data/attributes/sections/1/colour'],
      ],
      [
        'a nested section without a name',
        () => ['PUT', `${W}/${existing.uuid}`, { sections: [{ description: 'no name' }] }],
        ['/data/attributes/sections/0/name'],
      ],
      [
        'an invalid nested dock',
        () => [
          'PUT',
          `${W}/${existing.uuid}`,
          { docks: [{ dock_number: 'X', direction: 'sideways', capacity: -1 }] },
        ],
        ['/data/attributes/docks/0/direction', '/data/attributes/docks/0/capacity'],
      ],
      [
        'an invalid nested location',
        () => ['POST', W, warehouseAttrs({ location: { name: 'l'.repeat(256), latitude: 91 } })],
        ['/data/attributes/location/name', '/data/attributes/location/latitude'],
      ],
      [
        'sections that are not an array',
        () => ['POST', W, warehouseAttrs({ sections: { name: 'A' } })],
        ['/data/attributes/sections'],
      ],
      ['a body that is not an object', () => ['POST', W, [warehouseAttrs()]], ['/data']],
      [
        'a location without a name, latitude 91',
        () => ['POST', L, { location: { latitude: 91, longitude: 'east' } }],
        ['/data/attributes/name', '/data/attributes/latitude', '/data/attributes/longitude'],
      ],
      [
        'a section without a name',
        () => ['POST', S, { warehouse_section: { warehouse_uuid: existing.uuid } }],
        ['/data/attributes/name'],
      ],
      [
        'a section with an unknown field',
        () => ['PATCH', `${S}/${existing.sections[0].uuid}`, { warehouse_section: { colour: 'red' } }],
        ['/data/attributes/colour'],
      ],
      [
        'a dock with a bad direction, status and capacity',
        () => [
          'POST',
          D,
          {
            warehouse_dock: {
              warehouse_uuid: existing.uuid,
              dock_number: '1',
              direction: 'up',
              status: 'x',
              capacity: 'ten',
            },
          },
        ],
        ['/data/attributes/direction', '/data/attributes/status', '/data/attributes/capacity'],
      ],
      [
        'a dock number of 256 characters',
        () => ['PUT', `${D}/${existing.docks[0].uuid}`, { warehouse_dock: { dock_number: 'd'.repeat(256) } }],
        ['/data/attributes/dock_number'],
      ],
    ];

    it.each(cases)('%s', async (_name, request, pointers) => {
      const [method, path, body] = request();
      const res = await expectNothingWritten(() => call(method, path, body), 422);
      expect422(res, pointers);
    });

    it('a 255-character string is accepted', async () => {
      const res = await call('PATCH', `${W}/${existing.uuid}`, { name: 'n'.repeat(255) });
      expect(res.status).toBe(200);
      expect(res.body.warehouse.name).toHaveLength(255);
    });
  });

  describe('unknown records: 404, nothing written', () => {
    const paths = [W, S, D, L];
    const ids = ['not-a-uuid', '12345', `${randomUUID()}x`, randomUUID()];

    it.each(paths)('%s/:uuid with a malformed or unknown uuid', async (path) => {
      for (const id of ids) {
        for (const method of ['GET', 'PUT', 'PATCH', 'DELETE']) {
          const body = method === 'PUT' || method === 'PATCH' ? {} : undefined;
          const res = await expectNothingWritten(
            () => call(method, `${path}/${encodeURIComponent(id)}`, body),
            404,
          );
          expect404(res);
        }
      }
    });

    it('an update of an unknown warehouse with a valid body is 404', async () => {
      for (const id of ['not-a-uuid', randomUUID()]) {
        const res = await expectNothingWritten(
          () => call('PUT', `${W}/${id}`, { warehouse: warehouseAttrs({ sections: [{ name: 'x' }] }) }),
          404,
        );
        expect404(res);
      }
    });
  });
});
