import { LocationsExtension } from '@wharf/locations';
import { Get, Injectable } from '@nestjs/common';
import { InventoryExtension } from '@wharf/inventory';
import {
  BaseResource,
  Extension,
  ResourceChange,
  ResourceModel,
  ResourceWriteListener,
  WriteListener,
  ResourceServices,
  Resource,
  composeHost,
  createResourceTable,
} from '@wharf/core';
import { IsString, Min } from 'class-validator';
import { Client } from 'pg';
import { Column, Entity, MigrationInterface, QueryRunner } from 'typeorm';
import { createCompany, TestCompany } from './support/accounts';
import { http } from './support/http';
import { startApi, TestApi, testConfig } from './support/test-app';

// ---- a throwaway extension, defined the way an extension author would -----------------------------

/** No DTO: the writable fields and their rules come from the entity (plus its own `@Min(0)`). */
@Entity('gadgets')
@ResourceModel('gadget', { searchable: ['name'] })
class Gadget extends BaseResource {
  @Column('varchar') name: string;
  @Min(0) @Column({ type: 'integer', nullable: true }) weight: number | null;
}

@Resource(Gadget)
class GadgetController {
  constructor(private readonly services: ResourceServices) {}

  /** A route of the extension's own beside the five; `/gadgets/stats` must not be read as `/:uuid`. */
  @Get('stats')
  async stats() {
    const { meta } = await this.services.for(Gadget).list({ limit: '1' });
    return { stats: { count: meta.total } };
  }
}

class CreateGadgets1800000000000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await createResourceTable(queryRunner, 'gadgets', `"name" varchar(255) NOT NULL, "weight" integer`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE "gadgets"');
  }
}

/** A second write listener beside the webhook outbox: both see every committed change. */
const audited: string[] = [];

@Injectable()
@ResourceWriteListener()
class GadgetAudit implements WriteListener {
  async beforeCommit(_queryRunner: QueryRunner, _company: string, changes: ResourceChange[]) {
    audited.push(...changes.map((change) => `${change.resource.name}.${change.action}`));
  }
}

@Extension({
  name: 'gadgets',
  entities: [Gadget],
  migrations: [CreateGadgets1800000000000],
  controllers: [GadgetController],
  providers: [GadgetAudit],
})
class GadgetExtension {}

// ---- two extensions claiming the same resource name ------------------------------------------------

class WidgetDto {
  @IsString() name: string;
}

@Entity('alpha_widgets')
@ResourceModel('widget', { dto: WidgetDto })
class AlphaWidget extends BaseResource {
  @Column('varchar') name: string;
}

@Entity('beta_widgets')
@ResourceModel('widget', { dto: WidgetDto })
class BetaWidget extends BaseResource {
  @Column('varchar') name: string;
}

@Entity('gamma_places')
@ResourceModel('location', { dto: WidgetDto })
class GammaPlace extends BaseResource {
  @Column('varchar') name: string;
}

@Extension({ name: 'alpha', entities: [AlphaWidget] })
class AlphaExtension {}

@Extension({ name: 'beta', entities: [BetaWidget] })
class BetaExtension {}

@Extension({ name: 'gamma', entities: [GammaPlace] })
class GammaExtension {}

// -----------------------------------------------------------------------------------------------------

describe('extension SDK: a throwaway extension gets working routes without host edits', () => {
  let api: TestApi;
  let acme: TestCompany;
  const G = '/gadgets/int/v1/gadgets';

  beforeAll(async () => {
    api = await startApi({ extensions: [InventoryExtension, GadgetExtension] });
    acme = await createCompany(api);
  });
  afterAll(() => api.close());

  it('serves the five routes (+PATCH) with the conventions of every resource', async () => {
    const call = (method: string, path: string, body?: unknown) =>
      http(api.url, method, path, { key: acme.key, body });

    const created = await call('POST', G, { gadget: { name: 'Sprocket', weight: 3 } });
    expect(created.status).toBe(201);
    const gadget = created.body.gadget;
    expect(gadget).toEqual({
      id: gadget.uuid,
      uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
      company_uuid: acme.uuid,
      name: 'Sprocket',
      weight: 3,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect((await call('POST', G, { name: 'Flange' })).status).toBe(201);

    const list = await call('GET', `${G}?sort=name&weight_isNull=true`);
    expect(list.status).toBe(200);
    expect(list.body.gadgets.map((g: any) => g.name)).toEqual(['Flange']);
    expect(list.body.meta).toMatchObject({ total: 1 });
    expect((await call('GET', `${G}?query=sprock`)).body.gadgets).toEqual([gadget]);

    expect((await call('GET', `${G}/${gadget.uuid}`)).body).toEqual({ gadget });
    expect((await call('PUT', `${G}/${gadget.uuid}`, { gadget: { weight: 4 } })).body.gadget.weight).toBe(4);
    const patched = await call('PATCH', `${G}/${gadget.uuid}`, { name: 'Sprocket 2' });
    expect(patched.body.gadget).toMatchObject({ name: 'Sprocket 2', weight: 4 });

    const invalid = await call('POST', G, { gadget: { weight: -1, colour: 'red' } });
    expect(invalid.status).toBe(422);
    expect([...new Set(invalid.body.errors.map((e: any) => e.source.pointer))].sort()).toEqual([
      '/data/attributes/colour',
      '/data/attributes/name',
      '/data/attributes/weight',
    ]);
    const derived = await call('POST', G, { gadget: { name: 'x'.repeat(256), weight: 1.5 } });
    expect(derived.status).toBe(422);
    expect(derived.body.errors.map((e: any) => e.detail).sort()).toEqual([
      'name must be shorter than or equal to 255 characters.',
      'weight must be an integer number.',
    ]);
    expect((await call('GET', `${G}?foo=1`)).status).toBe(400);

    const removed = await call('DELETE', `${G}/${gadget.uuid}`);
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ gadget: patched.body.gadget });
    expect((await call('GET', `${G}/${gadget.uuid}`)).status).toBe(404);

    // authenticated like every other /int/v1 route
    expect((await http(api.url, 'GET', G)).status).toBe(401);
  });

  it("the controller's own route sits beside the five and is not swallowed by /:uuid", async () => {
    const before = await http(api.url, 'GET', `${G}/stats`, { key: acme.key });
    expect(before.status).toBe(200);
    await http(api.url, 'POST', G, { key: acme.key, body: { name: 'Counted' } });
    const after = await http(api.url, 'GET', `${G}/stats`, { key: acme.key });
    expect(after.status).toBe(200);
    expect(after.body).toEqual({ stats: { count: before.body.stats.count + 1 } });
  });

  it('every @ResourceWriteListener() provider receives the changes, beside the webhook outbox', async () => {
    audited.length = 0;
    const res = await http(api.url, 'POST', G, { key: acme.key, body: { name: 'Audited' } });
    expect(res.status).toBe(201);
    expect(audited).toEqual(['gadget.created']);
    const client = new Client({ connectionString: api.config.databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query(
        `SELECT 1 FROM "webhook_events" WHERE "name" = 'gadget.created' AND "payload"->'data'->>'uuid' = $1`,
        [res.body.gadget.uuid],
      );
      expect(rows).toHaveLength(1);
    } finally {
      await client.end();
    }
  });

  it('the listed extensions are loaded alongside the core (inventory and locations still work)', async () => {
    const res = await http(api.url, 'GET', '/inventory/int/v1/warehouses', { key: acme.key });
    expect(res.status).toBe(200);
    expect((await http(api.url, 'GET', '/int/v1/locations', { key: acme.key })).status).toBe(200);
  });
});

describe('extension SDK: one list page is a constant number of SQL statements', () => {
  let api: TestApi;
  let acme: TestCompany;
  const W = '/inventory/int/v1/warehouses';

  beforeAll(async () => {
    api = await startApi({ env: { RATE_LIMIT_PER_MINUTE: '100000' } });
    acme = await createCompany(api);
    const create = (i: number) =>
      http(api.url, 'POST', W, {
        key: acme.key,
        body: {
          warehouse: {
            name: `W${String(i).padStart(3, '0')}`,
            address: 'a',
            city: 'c',
            state: 's',
            zip: 'z',
            capacity: i,
            ...(i % 2 === 0 ? { location: { name: `L${i}` } } : {}),
            sections: [{ name: 'S1' }, { name: 'S2' }, { name: 'S3' }],
            docks: [{ dock_number: 'D1' }, { dock_number: 'D2' }, { dock_number: 'D3' }],
          },
        },
      });
    for (let batch = 0; batch < 10; batch++) {
      const results = await Promise.all(Array.from({ length: 10 }, (_, j) => create(batch * 10 + j)));
      for (const res of results) expect(res.status).toBe(201);
    }
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await api.close();
  });

  /** Statements sent to PostgreSQL (through any pooled pg client) while one list request is served. */
  async function statementsFor(query: string) {
    const get = () => http(api.url, 'GET', `${W}?${query}`, { key: acme.key });
    // warm up: the API key lookup is cached briefly, so it does not count against the page
    expect((await get()).status).toBe(200);
    const spy = jest.spyOn(Client.prototype, 'query');
    try {
      const res = await get();
      expect(res.status).toBe(200);
      const statements = spy.mock.calls.map((args) => {
        const first = args[0] as unknown;
        return typeof first === 'string' ? first : String((first as { text?: string })?.text);
      });
      return { res, statements };
    } finally {
      spy.mockRestore();
    }
  }

  it('listing 100 warehouses with 3 sections and 3 docks each', async () => {
    const big = await statementsFor('limit=100');
    expect(big.res.body.meta.total).toBe(100);
    const warehouses = big.res.body.warehouses;
    expect(warehouses).toHaveLength(100);
    for (const warehouse of warehouses) {
      expect(warehouse.sections.map((s: any) => s.name)).toEqual(['S1', 'S2', 'S3']);
      expect(warehouse.docks.map((d: any) => d.dock_number)).toEqual(['D1', 'D2', 'D3']);
      expect(warehouse.location?.name ?? null).toBe(
        warehouse.capacity % 2 === 0 ? `L${warehouse.capacity}` : null,
      );
    }

    // the page itself plus one statement per embedded relationship (location, sections, docks)
    expect(big.statements.length).toBeLessThanOrEqual(5);
    for (const table of ['warehouses', 'locations', 'warehouse_sections', 'warehouse_docks']) {
      const touching = big.statements.filter((sql) => sql.includes(`"${table}"`));
      expect({ table, statements: touching.length }).toEqual({ table, statements: 1 });
    }

    // Sorted so every page holds a warehouse with a location (even capacities have one): the count must not depend on timing.
    for (const query of [
      'limit=10&sort=-capacity',
      'limit=2&sort=-capacity',
      'limit=100&sort=name&query=W0',
    ]) {
      const small = await statementsFor(query);
      expect({ query, count: small.statements.length }).toEqual({ query, count: big.statements.length });
    }
  });
});

describe('extension SDK: conflicting extensions fail at start, naming both', () => {
  it('two extensions declaring the same resource name', () => {
    const config = testConfig();
    expect(() => composeHost(config, [], [AlphaExtension, BetaExtension])).toThrow(
      /widget.*"alpha".*"beta"|widget.*"beta".*"alpha"/,
    );
    expect(() => composeHost(config, [LocationsExtension], [InventoryExtension, GammaExtension])).toThrow(
      /location.*"locations".*"gamma"/,
    );
    expect(() =>
      composeHost(config, [LocationsExtension], [AlphaExtension, InventoryExtension]),
    ).not.toThrow();
  });
});
