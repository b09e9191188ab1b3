import { ModulesContainer } from '@nestjs/core';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  ReferenceInfo,
  ResourceDefinition,
  ResourceRegistry,
  extensionManifest,
  pluralPath,
  resourceName,
} from '@wharf/core';
import { DataSource } from 'typeorm';
import { createCompany, TestCompany } from './support/accounts';
import { http, HttpResult } from './support/http';
import { startApi, TestApi } from './support/test-app';

type Body = Record<string, unknown>;

/**
 * A minimal valid body per resource, WITHOUT its `*_uuid` references (those are filled in generically
 * from `definition.references`). Every registered resource must have one: a new resource without a seed
 * fails this suite, so it cannot escape the isolation walk.
 */
const SEEDS: Record<string, (tag: string) => Body> = {
  location: (tag) => ({ name: `${tag} depot`, city: `${tag} city`, latitude: 30.25, longitude: -97.75 }),
  warehouse: (tag) => ({
    name: `${tag} main`,
    address: `${tag} 1 Dock St`,
    city: `${tag} Austin`,
    state: 'TX',
    zip: '78701',
    capacity: 100,
  }),
  'warehouse-section': (tag) => ({ name: `${tag} aisle`, description: `${tag} cold` }),
  'warehouse-dock': (tag) => ({ dock_number: `${tag} D1`, direction: 'inbound', capacity: 2 }),
  vehicle: (tag) => ({ plate_number: `${tag} RT-1`, make: `${tag} make`, year: 2022, status: 'active' }),
  driver: (tag) => ({ name: `${tag} driver`, phone: '+1 555 0100', email: 'driver@example.com' }),
  order: (tag) => ({ reference: `${tag} PO-1`, notes: `${tag} fragile`, meta: { note: `${tag} meta` } }),
  // Port 9 (discard) refuses at once: test sends to it are logged without any outside traffic.
  'webhook-endpoint': (tag) => ({
    url: `http://127.0.0.1:9/${tag}`,
    description: `${tag} hook`,
    events: ['*'],
  }),
};

/**
 * Read-only resources (no create route) are seeded through the route that writes them; they take part in
 * every read and isolation check, and their absent write routes must refuse too.
 */
const READ_ONLY_SEEDS: Record<
  string,
  (url: string, owner: TestCompany, records: Record<string, string>) => Promise<string>
> = {
  'webhook-request-log': async (url, owner, records) => {
    const endpoint = records['webhook-endpoint'];
    const res = await http(url, 'POST', `/int/v1/webhook-endpoints/${endpoint}/test`, { key: owner.key });
    if (res.status !== 200) throw new Error(`test send failed: ${res.status} ${res.text}`);
    return res.body.webhook_request_log.uuid;
  },
};

interface Walked {
  def: ResourceDefinition;
  /** `/<namespace>/<plural>`, found at runtime from the loaded extension modules. */
  url: string;
  /** References the client can write that point at another tenant-scoped, seeded resource. */
  refs: ReferenceInfo[];
  /** References to another tenant-scoped, seeded resource, writable or not: list filters try them. */
  filterRefs: ReferenceInfo[];
  /** Served without create/update/delete routes. */
  readOnly: boolean;
}

/** Every resource route actually mounted by the api, by resource name, from the Nest module graph. */
function mountedResourceRoutes(app: NestFastifyApplication): Map<string, string> {
  const routes = new Map<string, string>();
  for (const module of app.get(ModulesContainer).values()) {
    const manifest = module.metatype ? extensionManifest(module.metatype) : undefined;
    if (!manifest) continue;
    for (const controller of module.controllers.values()) {
      const name = controller.metatype ? resourceName(controller.metatype) : undefined;
      if (name) routes.set(name, `/${manifest.namespace}/${pluralPath(name)}`);
    }
  }
  return routes;
}

/** Referenced resources first, so every `*_uuid` can point at an existing record. */
function dependencyOrder(defs: ResourceDefinition[]): ResourceDefinition[] {
  const byName = new Map(defs.map((def) => [def.name, def]));
  const ordered: ResourceDefinition[] = [];
  const visiting = new Set<string>();
  const visit = (def: ResourceDefinition) => {
    if (ordered.includes(def) || visiting.has(def.name)) return;
    visiting.add(def.name);
    for (const ref of def.references) {
      const target = byName.get(ref.resource);
      if (target && target !== def) visit(target);
    }
    ordered.push(def);
  };
  defs.forEach(visit);
  return ordered;
}

function outcome(label: string, res: HttpResult) {
  return { label, status: res.status, error: res.body?.errors?.[0]?.detail ?? res.body?.errors };
}

describe('tenant isolation: every registered resource, company B against company A', () => {
  let api: TestApi;
  let db: DataSource;
  let a: TestCompany;
  let b: TestCompany;
  let walked: Walked[];
  let unrouted: string[];
  let unseeded: string[];
  /** Record uuids per company and resource name. */
  const records: Record<string, Record<string, string>> = {};
  let snapshotOfA: Record<string, string[]>;

  const bodyFor = (walk: Walked, owner: TestCompany, tag: string): Body => {
    if (walk.readOnly) return { event: tag };
    const body = SEEDS[walk.def.name](tag);
    for (const ref of walk.refs) body[ref.column] = records[owner.uuid][ref.resource];
    return body;
  };

  const snapshot = async (company: string) => {
    const out: Record<string, string[]> = {};
    for (const { def } of walked) {
      const rows: { row: string }[] = await db.query(
        `SELECT row_to_json(t)::text AS row FROM "${def.table}" t WHERE company_uuid = $1 ORDER BY id`,
        [company],
      );
      out[def.table] = rows.map((r) => r.row);
    }
    return out;
  };

  const countRows = async (def: ResourceDefinition, company: string): Promise<number> => {
    const [{ n }] = await db.query(`SELECT count(*)::int AS n FROM "${def.table}" WHERE company_uuid = $1`, [
      company,
    ]);
    return n;
  };

  beforeAll(async () => {
    api = await startApi();
    db = api.app.get(DataSource);
    a = await createCompany(api, 'Company A');
    b = await createCompany(api, 'Company B');

    const defs = api.app.get(ResourceRegistry).all();
    const routes = mountedResourceRoutes(api.app);
    unrouted = defs.filter((def) => !routes.has(def.name)).map((def) => def.name);
    unseeded = defs.filter((def) => !SEEDS[def.name] && !READ_ONLY_SEEDS[def.name]).map((def) => def.name);
    const names = new Set(defs.map((def) => def.name));
    walked = dependencyOrder(defs)
      .filter((def) => routes.has(def.name) && (SEEDS[def.name] || READ_ONLY_SEEDS[def.name]))
      .map((def) => ({
        def,
        url: routes.get(def.name)!,
        refs: def.references.filter(
          (ref) => ref.scoped && def.writable.has(ref.column) && names.has(ref.resource),
        ),
        filterRefs: def.references.filter((ref) => ref.scoped && names.has(ref.resource)),
        readOnly: !SEEDS[def.name],
      }));

    for (const company of [a, b]) {
      records[company.uuid] = {};
      const tag = company === a ? 'Alpha' : 'Bravo';
      for (const walk of walked) {
        if (walk.readOnly) {
          const seed = READ_ONLY_SEEDS[walk.def.name];
          records[company.uuid][walk.def.name] = await seed(api.url, company, records[company.uuid]);
          continue;
        }
        const res = await http(api.url, 'POST', walk.url, {
          key: company.key,
          body: { [walk.def.keys.singular]: bodyFor(walk, company, tag) },
        });
        if (res.status !== 201) throw new Error(`seeding ${walk.def.name} failed: ${res.status} ${res.text}`);
        records[company.uuid][walk.def.name] = res.body[walk.def.keys.singular].uuid;
      }
    }
    snapshotOfA = await snapshot(a.uuid);
  });
  afterAll(() => api.close());

  it('walks every registered resource: each has routes and a seed body', () => {
    expect(unseeded).toEqual([]);
    expect(unrouted).toEqual([]);
    const names = walked.map((w) => w.def.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'location',
        'warehouse',
        'vehicle',
        'driver',
        'order',
        'webhook-endpoint',
        'webhook-request-log',
      ]),
    );
    expect(names).toHaveLength(api.app.get(ResourceRegistry).all().length);
    // Core and extension namespaces are both walked.
    expect(walked.find((w) => w.def.name === 'location')!.url).toBe('/int/v1/locations');
    expect(walked.some((w) => !w.url.startsWith('/int/v1/'))).toBe(true);
    for (const walk of walked) expect(snapshotOfA[walk.def.table]).toHaveLength(1);
  });

  it('lists show none of A’s records, whatever the filter', async () => {
    const aUuids = Object.values(records[a.uuid]);
    const seen: ReturnType<typeof outcome>[] = [];
    for (const walk of walked) {
      const { def, url } = walk;
      const aUuid = records[a.uuid][def.name];
      const queries = [
        '',
        `?uuid=${aUuid}`,
        `?uuid_in=${aUuid},${records[b.uuid][def.name]}`,
        ...(def.searchable.length ? ['?query=Alpha'] : []),
        ...walk.filterRefs.map((ref) => `?${ref.column}=${records[a.uuid][ref.resource]}`),
      ];
      for (const query of queries) {
        const res = await http(api.url, 'GET', `${url}${query}`, { key: b.key });
        seen.push(outcome(`GET ${url}${query}`, res));
        expect(res.status).toBe(200);
        const list = res.body[def.keys.plural] as Body[];
        expect(Array.isArray(list)).toBe(true);
        for (const record of list) expect(record.company_uuid).toBe(b.uuid);
        const request = `GET ${url}${query}`;
        const leaked = [...aUuids, a.uuid, 'Alpha'].filter((secret) => res.text.includes(secret));
        expect({ request, leaked }).toEqual({ request, leaked: [] });
        if (query === '') {
          expect(list.map((r) => r.uuid)).toEqual([records[b.uuid][def.name]]);
          expect(res.body.meta.total).toBe(1);
        }
      }
    }
    expect(seen.every((s) => s.status === 200)).toBe(true);
  });

  it('find, update (PUT and PATCH) and delete of A’s records are 404 (405 where no such route)', async () => {
    const got: ReturnType<typeof outcome>[] = [];
    const expected: { label: string; status: number }[] = [];
    for (const walk of walked) {
      const target = `${walk.url}/${records[a.uuid][walk.def.name]}`;
      // A body valid for B, so only the scoping can refuse it.
      const body = { [walk.def.keys.singular]: bodyFor(walk, b, 'Bravo changed') };
      for (const [method, options] of [
        ['GET', {}],
        ['PUT', { body }],
        ['PATCH', { body }],
        ['DELETE', {}],
      ] as const) {
        const res = await http(api.url, method, target, { key: b.key, ...options });
        got.push(outcome(`${method} ${target}`, res));
        // A read-only resource serves no write: 405, which says nothing of A's record either.
        expected.push({
          label: `${method} ${target}`,
          status: walk.readOnly && method !== 'GET' ? 405 : 404,
        });
        if (res.status === 404) {
          expect(res.body.errors[0]).toMatchObject({ status: '404', code: expect.any(String) });
          expect(res.text).not.toContain('Alpha');
        }
      }
    }
    expect(got.map(({ label, status }) => ({ label, status }))).toEqual(expected);
  });

  it('a create or update referencing A’s records through a *_uuid field is 422 and writes nothing', async () => {
    const attacks: string[] = [];
    const got: ReturnType<typeof outcome>[] = [];
    for (const walk of walked) {
      for (const ref of walk.refs) {
        const column = ref.column;
        const aTarget = records[a.uuid][ref.resource];
        attacks.push(`${walk.def.name}.${column}`);
        const before = await snapshot(b.uuid);
        const body = { ...bodyFor(walk, b, 'Bravo attack'), [column]: aTarget };

        const created = await http(api.url, 'POST', walk.url, {
          key: b.key,
          body: { [walk.def.keys.singular]: body },
        });
        got.push(outcome(`POST ${walk.url} ${column}`, created));
        expect({ attack: `POST ${walk.def.name}.${column}`, status: created.status }).toEqual({
          attack: `POST ${walk.def.name}.${column}`,
          status: 422,
        });
        expect(created.body.errors).toContainEqual(
          expect.objectContaining({
            status: '422',
            source: { pointer: `/data/attributes/${column}` },
          }),
        );

        const own = `${walk.url}/${records[b.uuid][walk.def.name]}`;
        for (const method of ['PUT', 'PATCH']) {
          const updated = await http(api.url, method, own, {
            key: b.key,
            body: { [walk.def.keys.singular]: { [column]: aTarget } },
          });
          got.push(outcome(`${method} ${own} ${column}`, updated));
          expect({ attack: `${method} ${walk.def.name}.${column}`, status: updated.status }).toEqual({
            attack: `${method} ${walk.def.name}.${column}`,
            status: 422,
          });
        }
        expect(await snapshot(b.uuid)).toEqual(before);
      }
    }
    // The acceptance examples are among the generic attacks.
    expect(attacks).toEqual(
      expect.arrayContaining([
        'warehouse.location_uuid',
        'warehouse-section.warehouse_uuid',
        'driver.vehicle_uuid',
        'order.driver_uuid',
        'order.pickup_location_uuid',
        'order.dropoff_location_uuid',
      ]),
    );
    expect(got.length).toBeGreaterThan(0);
  });

  it('embedded relationships cannot link or adopt A’s records by uuid (422)', async () => {
    let tried = 0;
    for (const walk of walked) {
      const { def, url } = walk;
      for (const embed of def.embeds) {
        const target = embed.target();
        const aChild = records[a.uuid][target.name];
        if (!aChild) continue;
        tried++;
        const before = await snapshot(b.uuid);
        const nested = embed.kind === 'one' ? { uuid: aChild } : [{ uuid: aChild }];
        const label = `${def.name}.${embed.property}`;

        const created = await http(api.url, 'POST', url, {
          key: b.key,
          body: { [def.keys.singular]: { ...bodyFor(walk, b, 'Bravo nested'), [embed.property]: nested } },
        });
        expect({ label, status: created.status }).toEqual({ label, status: 422 });

        const updated = await http(api.url, 'PUT', `${url}/${records[b.uuid][def.name]}`, {
          key: b.key,
          body: { [def.keys.singular]: { [embed.property]: nested } },
        });
        expect({ label, status: updated.status }).toEqual({ label, status: 422 });
        expect(await snapshot(b.uuid)).toEqual(before);
      }
    }
    expect(tried).toBeGreaterThan(0);
  });

  it('a stale cross-company reference in the database is never serialised', async () => {
    let tried = 0;
    for (const walk of walked) {
      const { def, url } = walk;
      for (const embed of def.embeds.filter((e) => e.kind === 'one')) {
        const aTarget = records[a.uuid][embed.target().name];
        if (!aTarget) continue;
        tried++;
        const own = records[b.uuid][def.name];
        const [{ previous }] = await db.query(
          `SELECT "${embed.column}" AS previous FROM "${def.table}" WHERE uuid = $1`,
          [own],
        );
        // Simulate data written before scoping existed: B's record points at A's.
        await db.query(`UPDATE "${def.table}" SET "${embed.column}" = $1 WHERE uuid = $2`, [aTarget, own]);
        try {
          for (const path of [`${url}/${own}`, url]) {
            const res = await http(api.url, 'GET', path, { key: b.key });
            expect(res.status).toBe(200);
            expect(res.text).not.toContain('Alpha');
          }
        } finally {
          await db.query(`UPDATE "${def.table}" SET "${embed.column}" = $1 WHERE uuid = $2`, [previous, own]);
        }
      }
    }
    expect(tried).toBeGreaterThan(0);
  });

  it('a client-supplied company_uuid of another company is ignored: the record belongs to the caller', async () => {
    for (const walk of walked) {
      const { def, url } = walk;
      const countA = await countRows(def, a.uuid);
      if (walk.readOnly) {
        const refused = await http(api.url, 'POST', url, { key: b.key, body: { company_uuid: a.uuid } });
        expect({ resource: def.name, status: refused.status }).toEqual({ resource: def.name, status: 405 });
        expect(await countRows(def, a.uuid)).toBe(countA);
        continue;
      }
      for (const body of [
        { [def.keys.singular]: { ...bodyFor(walk, b, 'Bravo own'), company_uuid: a.uuid } },
        { ...bodyFor(walk, b, 'Bravo flat'), company_uuid: a.uuid },
      ]) {
        const created = await http(api.url, 'POST', url, { key: b.key, body });
        expect({ resource: def.name, status: created.status }).toEqual({ resource: def.name, status: 201 });
        const record = created.body[def.keys.singular];
        expect(record.company_uuid).toBe(b.uuid);
        const [row] = await db.query(`SELECT company_uuid FROM "${def.table}" WHERE uuid = $1`, [
          record.uuid,
        ]);
        expect(row.company_uuid).toBe(b.uuid);
        expect((await http(api.url, 'GET', `${url}/${record.uuid}`, { key: a.key })).status).toBe(404);

        // Echoing company_uuid back on an update does not move the record either.
        const updated = await http(api.url, 'PUT', `${url}/${record.uuid}`, {
          key: b.key,
          body: { [def.keys.singular]: { ...record, company_uuid: a.uuid } },
        });
        expect({ resource: def.name, status: updated.status }).toEqual({ resource: def.name, status: 200 });
        expect(updated.body[def.keys.singular].company_uuid).toBe(b.uuid);
        const [after] = await db.query(`SELECT company_uuid FROM "${def.table}" WHERE uuid = $1`, [
          record.uuid,
        ]);
        expect(after.company_uuid).toBe(b.uuid);
      }
      expect(await countRows(def, a.uuid)).toBe(countA);
    }
  });

  it('afterwards A’s data is byte-for-byte unchanged and A still sees all of it', async () => {
    expect(await snapshot(a.uuid)).toEqual(snapshotOfA);
    for (const { def, url } of walked) {
      const res = await http(api.url, 'GET', url, { key: a.key });
      expect(res.status).toBe(200);
      expect(res.body[def.keys.plural].map((r: Body) => r.uuid)).toEqual([records[a.uuid][def.name]]);
      expect(res.text).not.toContain('Bravo');
    }
  });
});
