import { createHash, randomUUID } from 'node:crypto';
import { Controller, Post } from '@nestjs/common';
import { createApi } from '@wharf/api';
import { AccountsService, RESTRICTED_KEY_PREFIX, generateApiKey } from '@wharf/accounts';
import { Extension, ExtensionError, Permission, ensureDatabase, runMigrations } from '@wharf/core';
import { InventoryExtension } from '@wharf/inventory';
import { composeWharf } from '@wharf/webhooks';
import { TestCompany, createCompany } from './support/accounts';
import { dbState } from './support/db-state';
import { openEventStream } from './support/event-stream';
import { HttpResult, eventually, http } from './support/http';
import { CLI, assertBuilt, runNode } from './support/processes';
import { TestApi, query, startApi, testConfig } from './support/test-app';
import { PERMISSIONS, type Permission as PermissionName } from '@wharf/client';
import { sql, warehouse } from './support/webhooks';

const W = '/inventory/int/v1/warehouses';
const NO_SUCH = '00000000-0000-4000-8000-000000000000';
const NO_EVENT = 'evt_0mq1z2x3y4a1b2c3d4e5f6a7b8c9d';

@Controller('widgets')
class WidgetController {
  @Post(':uuid/poke')
  poke() {
    return {};
  }
}

@Controller('gizmos')
class GizmoController {
  @Post(':uuid/poke')
  @Permission('gizmos.gizmos:poke')
  poke() {
    return {};
  }
}

/** A route added without a permission. */
@Extension({ name: 'widgets', entities: [], controllers: [WidgetController] })
class OpenByOmission {}

/** A route naming a permission nobody declares; then the same, declared. */
@Extension({ name: 'gizmos', entities: [], controllers: [GizmoController] })
class UndeclaredPermission {}

@Extension({
  name: 'gizmos',
  entities: [],
  controllers: [GizmoController],
  permissions: [{ name: 'gizmos.gizmos:poke', description: 'Poke gizmos' }],
})
class DeclaredPermission {}

/** Declares a permission inventory's warehouses already have. */
@Extension({
  name: 'squatter',
  entities: [],
  permissions: [{ name: 'inventory.warehouses:read', description: 'Mine' }],
})
class DuplicatePermission {}

@Extension({ name: 'badly', entities: [], permissions: [{ name: 'Poke Everything', description: 'x' }] })
class BadlyNamedPermission {}

const bootError = (extensions: unknown[]) => {
  try {
    composeWharf(testConfig(), extensions as never);
  } catch (error) {
    return { type: (error as Error).constructor.name, message: (error as Error).message };
  }
  return undefined;
};

describe('permissions: declared by extensions, checked at boot', () => {
  it('a route added without a permission fails the boot with one line naming it', async () => {
    const error = bootError([InventoryExtension, OpenByOmission]);
    expect(error).toEqual({
      type: ExtensionError.name,
      message: expect.stringMatching(
        /^Extension "widgets", route POST widgets\/:uuid\/poke \(WidgetController\.poke\): names no permission/,
      ),
    });
    expect(error!.message).not.toContain('\n');
    // The api process itself refuses to start, before it touches a database.
    await expect(createApi(testConfig(), { extensions: [OpenByOmission] })).rejects.toThrow(
      /route POST widgets\/:uuid\/poke .*names no permission/,
    );
  });

  it('an unknown, duplicate or badly named permission fails the boot with one line', () => {
    expect(bootError([UndeclaredPermission])?.message).toMatch(
      /^Extension "gizmos", route POST gizmos\/:uuid\/poke \(GizmoController\.poke\): needs the permission "gizmos\.gizmos:poke", which no loaded extension declares/,
    );
    expect(bootError([InventoryExtension, DuplicatePermission])?.message).toMatch(
      /^Extension "squatter", permission "inventory\.warehouses:read": declared twice \(also by extension "inventory"\)$/,
    );
    expect(bootError([BadlyNamedPermission])?.message).toMatch(
      /^Extension "badly", permission "Poke Everything": not a permission name/,
    );
    // Declared, the same route boots, and the catalog has it.
    expect(bootError([DeclaredPermission])).toBeUndefined();
    expect(composeWharf(testConfig(), [DeclaredPermission]).permissions.has('gizmos.gizmos:poke')).toBe(true);
  });
});

describe('permissions: every route, restricted keys, portal sessions', () => {
  let api: TestApi;
  let acme: TestCompany;
  let catalog: string[];
  const accounts = () => api.app.get(AccountsService);
  const keyWith = async (permissions: string[], company = acme) =>
    (await accounts().createApiKey(company.uuid, permissions.join(' ').slice(0, 255), false, permissions))
      .key;

  beforeAll(async () => {
    api = await startApi({ env: { RATE_LIMIT_PER_MINUTE: '100000' } });
    acme = await createCompany(api, 'Permissions Co');
    catalog = (await http(api.url, 'GET', '/int/v1/permissions', { key: acme.key })).body.permissions.map(
      (entry: { name: string }) => entry.name,
    );
  });
  afterAll(() => api?.close());

  it('GET /int/v1/permissions lists the catalog with one line each: resources’, extensions’ own, management’s', async () => {
    const res = await http(api.url, 'GET', '/int/v1/permissions', { key: acme.key });
    expect(res.status).toBe(200);
    const byName = new Map<string, { description: string; extension: string }>(
      res.body.permissions.map((entry: any) => [entry.name, entry]),
    );
    for (const [name, extension] of [
      ['inventory.warehouses:read', 'inventory'],
      ['inventory.warehouses:write', 'inventory'],
      ['inventory.warehouse_sections:read', 'inventory'],
      ['fleet.drivers:read', 'fleet'],
      ['fleet.orders:dispatch', 'fleet'],
      ['webhooks.endpoints:read', 'webhooks'],
      ['webhooks.endpoints:write', 'webhooks'],
      ['webhooks.logs:read', 'webhooks'],
      ['webhooks.secrets:reveal', 'webhooks'],
      ['events:read', 'webhooks'],
      ['api_keys:write', 'accounts'],
      ['portal_sessions:write', 'accounts'],
    ])
      expect({ name, extension: byName.get(name)?.extension }).toEqual({ name, extension });
    // The request log is read-only: no write permission is made for it.
    expect(byName.has('webhooks.logs:write')).toBe(false);
    for (const [name, entry] of byName)
      expect({ name, line: /^[^\n]{8,}$/.test(entry.description) }).toEqual({ name, line: true });
    // The TypeScript client knows the same names, as a type.
    const typed: PermissionName = 'inventory.warehouses:read';
    expect([...PERMISSIONS]).toEqual(catalog);
    expect(PERMISSIONS).toContain(typed);
  });

  it('the CLI makes restricted keys with --permissions (companies:create, api-keys:create); unknown ones are refused', async () => {
    assertBuilt();
    const env = {
      DATABASE_URL: api.config.databaseUrl,
      REDIS_URL: api.config.redisUrl,
      QUEUE_PREFIX: api.config.queuePrefix,
      NODE_ENV: 'test',
    };
    const cli = async (...args: string[]) => {
      const run = runNode(CLI, args, env);
      return { code: (await run.exited).code, output: run.output() };
    };
    const company = await cli(
      'companies:create',
      '--name',
      'CLI Co',
      '--permissions',
      'inventory.*,events:read',
      '--json',
    );
    expect(company.code).toBe(0);
    const made = JSON.parse(company.output);
    expect(made.api_key).toMatch(/^wharf_rk_/);
    expect((await http(api.url, 'GET', W, { key: made.api_key })).status).toBe(200);
    const refused = await http(api.url, 'GET', '/int/v1/webhook-endpoints', { key: made.api_key });
    expect(refused.body.errors[0].meta).toEqual({ permission: 'webhooks.endpoints:read' });

    const key = await cli(
      'api-keys:create',
      '--company',
      made.company.uuid,
      '--permissions',
      'inventory.warehouses:read',
      '--json',
    );
    expect(key.code).toBe(0);
    expect(JSON.parse(key.output)).toMatchObject({
      api_key: expect.stringMatching(/^wharf_rk_/),
      permissions: ['inventory.warehouses:read'],
    });
    const unknown = await cli(
      'api-keys:create',
      '--company',
      made.company.uuid,
      '--permissions',
      'inventory.warehouses:fly',
    );
    expect(unknown).toEqual({
      code: 2,
      output: expect.stringContaining('"inventory.warehouses:fly" is not a permission'),
    });
  });

  /** A call, with the stream read only as far as its status (it stays open). */
  async function call(method: string, url: string, key: string): Promise<HttpResult> {
    if (url.endsWith('/webhook-activity/stream')) {
      const stream = await openEventStream(`${api.url}${url}`, { authorization: `Bearer ${key}` });
      if (stream.status !== 200) await stream.ended;
      stream.close();
      const text = stream.text();
      return { status: stream.status, headers: stream.headers, text, body: safeJson(text) };
    }
    return http(api.url, method, url, {
      key,
      body: method === 'GET' || method === 'DELETE' ? undefined : {},
    });
  }

  /** One record of each collection, made with the company's full key: its uuid by collection path. */
  async function seedRecords(): Promise<Map<string, string>> {
    const made = async (path: string, body: unknown) => {
      const res = await http(api.url, 'POST', path, { key: acme.key, body });
      expect({ path, status: res.status }).toEqual({ path, status: 201 });
      return Object.values(res.body as Record<string, { uuid: string }>)[0].uuid;
    };
    const location = await made('/int/v1/locations', { location: { name: 'Walked' } });
    const vehicle = await made('/fleet/int/v1/vehicles', { vehicle: { plate_number: 'W-1' } });
    const driver = await made('/fleet/int/v1/drivers', { driver: { name: 'Walker', vehicle_uuid: vehicle } });
    const order = await made('/fleet/int/v1/orders', { order: { reference: 'W-1', driver_uuid: driver } });
    const house = await made(
      W,
      warehouse('Walked', { sections: [{ name: 'A' }], docks: [{ dock_number: 'D1' }] }),
    );
    const { warehouse: stored } = (await http(api.url, 'GET', `${W}/${house}`, { key: acme.key })).body;
    const endpoint = await made('/int/v1/webhook-endpoints', {
      webhook_endpoint: { url: 'https://hooks.example.com/walked', events: ['warehouse.created'] },
    });
    const key = (await accounts().createApiKey(acme.uuid, 'walked', false, ['*'])).uuid;
    const session = await made('/int/v1/portal-sessions', { portal_session: { read_only: true } });
    return new Map([
      ['/int/v1/locations', location],
      ['/fleet/int/v1/vehicles', vehicle],
      ['/fleet/int/v1/drivers', driver],
      ['/fleet/int/v1/orders', order],
      [W, house],
      ['/inventory/int/v1/warehouse-sections', stored.sections[0].uuid],
      ['/inventory/int/v1/warehouse-docks', stored.docks[0].uuid],
      ['/int/v1/webhook-endpoints', endpoint],
      ['/int/v1/api-keys', key],
      ['/int/v1/portal-sessions', session],
    ]);
  }

  /** `path` with the uuid of a seeded record of its collection; undefined when none was seeded. */
  function realPath(path: string, ids: Map<string, string>): string | undefined {
    const at = path.indexOf('/{uuid}');
    const id = at < 0 ? undefined : ids.get(path.slice(0, at));
    return id && path.replace('{uuid}', id);
  }

  it('walks every operation of the OpenAPI document: without its permission 403 naming it and nothing written; with only it, never 403', async () => {
    const document = (await http(api.url, 'GET', '/docs-json')).body;
    const ids = await seedRecords();
    const signedIn: string[] = [];
    let walked = 0;
    let onRecords = 0;
    for (const [path, item] of Object.entries<Record<string, any>>(document.paths)) {
      for (const [method, operation] of Object.entries<Record<string, any>>(item)) {
        if (operation.security?.length === 0) continue;
        const where = `${method.toUpperCase()} ${path}`;
        const permission: string | undefined = operation['x-wharf-permission'];
        if (!permission) {
          signedIn.push(where);
          continue;
        }
        expect({ where, described: operation.description.includes(`\`${permission}\``) }).toEqual({
          where,
          described: true,
        });
        // Refused on a record that exists (a write let through would change it); allowed on none, so the
        // walk destroys nothing it needs later.
        const real = realPath(path, ids);
        if (real !== undefined) onRecords++;
        const url = path.replace(/\{(\w+)\}/g, (_, name: string) =>
          name === 'event_id' ? NO_EVENT : NO_SUCH,
        );
        // Without it: every other permission (a write brings its read, so a read goes with its write).
        const without = catalog.filter(
          (name) => name !== permission && name !== permission.replace(/:read$/, ':write'),
        );
        const lacking = await keyWith(without);
        const holding = await keyWith([permission]);
        const before = await dbState(api);
        const refused = await call(method.toUpperCase(), real ?? url, lacking);
        expect({ where, status: refused.status, error: refused.body?.errors?.[0] }).toEqual({
          where,
          status: 403,
          error: expect.objectContaining({ code: 'insufficient_permission', meta: { permission } }),
        });
        expect({ where, state: await dbState(api) }).toEqual({ where, state: before });
        const allowed = await call(method.toUpperCase(), url, holding);
        expect({ where, status: allowed.status }).not.toEqual({ where, status: 403 });
        walked++;
      }
    }
    expect(walked).toBeGreaterThan(50);
    expect(onRecords).toBeGreaterThan(30);
    // Only who the caller is and what exists need no permission.
    expect(signedIn.sort()).toEqual([
      'GET /int/v1/destination-types',
      'GET /int/v1/permissions',
      'GET /int/v1/session',
    ]);
  });

  it('a key with inventory.warehouses:read lists warehouses and cannot create one', async () => {
    const key = await keyWith(['inventory.warehouses:read']);
    expect(key.startsWith(RESTRICTED_KEY_PREFIX)).toBe(true);
    const listed = await http(api.url, 'GET', W, { key });
    expect(listed.status).toBe(200);
    expect(listed.body.warehouses.length).toBeGreaterThan(0);
    const before = await dbState(api);
    const refused = await http(api.url, 'POST', W, { key, body: warehouse('Refused') });
    expect(refused.status).toBe(403);
    expect(refused.body.errors[0]).toMatchObject({
      status: '403',
      code: 'insufficient_permission',
      meta: { permission: 'inventory.warehouses:write' },
    });
    expect(await dbState(api)).toEqual(before);
  });

  it('a nested write needs the write of the records it writes: 403 naming it, with its pointer, nothing written', async () => {
    const O = '/fleet/int/v1/orders';
    const driver = (
      await http(api.url, 'POST', '/fleet/int/v1/drivers', {
        key: acme.key,
        body: { driver: { name: 'Dana' } },
      })
    ).body.driver;
    const order = (await http(api.url, 'POST', O, { key: acme.key, body: { order: { reference: 'N-0' } } }))
      .body.order;
    const orders = await keyWith(['fleet.orders:write']);
    const warehouses = await keyWith(['inventory.warehouses:write']);
    const cases: [string, string, string, unknown, string, string][] = [
      [
        orders,
        'POST',
        O,
        { order: { reference: 'N-1', driver: { name: 'Smuggled' } } },
        'fleet.drivers:write',
        'driver',
      ],
      [
        orders,
        'PUT',
        `${O}/${order.uuid}`,
        { order: { driver: { uuid: driver.uuid, name: 'Renamed' } } },
        'fleet.drivers:write',
        'driver',
      ],
      [
        orders,
        'POST',
        O,
        { order: { reference: 'N-2', pickup_location: { name: 'Quay' } } },
        'locations.locations:write',
        'pickup_location',
      ],
      [
        warehouses,
        'POST',
        W,
        warehouse('Nested', { sections: [{ name: 'A' }] }),
        'inventory.warehouse_sections:write',
        'sections',
      ],
      [warehouses, 'POST', W, warehouse('Nested', { docks: [] }), 'inventory.warehouse_docks:write', 'docks'],
      [
        warehouses,
        'POST',
        W,
        warehouse('Nested', { location: { name: 'Yard' } }),
        'locations.locations:write',
        'location',
      ],
    ];
    const before = await dbState(api);
    for (const [key, method, path, body, permission, property] of cases) {
      const res = await http(api.url, method, path, { key, body });
      expect({ property, status: res.status, error: res.body.errors?.[0] }).toEqual({
        property,
        status: 403,
        error: expect.objectContaining({
          code: 'insufficient_permission',
          meta: { permission },
          source: { pointer: `/data/attributes/${property}` },
        }),
      });
    }
    expect(await dbState(api)).toEqual(before);
    // The same writes with the permissions they need; linking a driver by its uuid needs none of its own.
    const linked = await http(api.url, 'POST', O, {
      key: orders,
      body: { order: { reference: 'N-3', driver: { uuid: driver.uuid } } },
    });
    expect(linked.status).toBe(201);
    expect(linked.body.order.driver_uuid).toBe(driver.uuid);
    const both = await keyWith(['fleet.orders:write', 'fleet.drivers:write']);
    const nested = await http(api.url, 'POST', O, {
      key: both,
      body: { order: { reference: 'N-4', driver: { name: 'Declared' } } },
    });
    expect(nested.status).toBe(201);
    expect(nested.body.order.driver).toMatchObject({ name: 'Declared' });
  });

  it('an answer leaves out the embedded records the caller may not read, and keeps those it may', async () => {
    const O = '/fleet/int/v1/orders';
    const location = (
      await http(api.url, 'POST', '/int/v1/locations', {
        key: acme.key,
        body: { location: { name: 'Pier' } },
      })
    ).body.location;
    const created = await http(api.url, 'POST', O, {
      key: acme.key,
      body: {
        order: { reference: 'E-1', driver: { name: 'Embedded' }, pickup_location_uuid: location.uuid },
      },
    });
    expect(created.status).toBe(201);
    const { uuid, driver_uuid: driverUuid } = created.body.order;
    const shown = async (key: string) => {
      const one = (await http(api.url, 'GET', `${O}/${uuid}`, { key })).body.order;
      const listed = (await http(api.url, 'GET', `${O}?reference=E-1`, { key })).body.orders[0];
      expect(listed).toEqual(one);
      return { driver: one.driver?.name, pickup: one.pickup_location?.name, has: Object.keys(one) };
    };
    expect(await shown(acme.key)).toMatchObject({ driver: 'Embedded', pickup: 'Pier' });
    const orders = await shown(await keyWith(['fleet.orders:read']));
    expect(orders).toMatchObject({ driver: undefined, pickup: undefined });
    expect(orders.has).not.toContain('driver');
    expect(orders.has).not.toContain('pickup_location');
    expect(orders.has).toContain('driver_uuid');
    expect(await shown(await keyWith(['fleet.orders:read', 'fleet.drivers:read']))).toMatchObject({
      driver: 'Embedded',
      pickup: undefined,
    });
    // A write's answer too.
    const writer = await keyWith(['fleet.orders:write']);
    const patched = await http(api.url, 'PATCH', `${O}/${uuid}`, { key: writer, body: { notes: 'fragile' } });
    expect(patched.status).toBe(200);
    expect(patched.body.order).toMatchObject({ notes: 'fragile', driver_uuid: driverUuid });
    expect(Object.keys(patched.body.order)).not.toContain('driver');
  });

  it('another company’s record stays a 404 for a key that may read it, never a 403', async () => {
    const globex = await createCompany(api, 'Permissions Globex');
    const theirs = (await http(api.url, 'POST', W, { key: globex.key, body: warehouse('Theirs') })).body
      .warehouse.uuid;
    const reader = await keyWith(['inventory.warehouses:read']);
    expect((await http(api.url, 'GET', `${W}/${theirs}`, { key: reader })).status).toBe(404);
    const writer = await keyWith(['inventory.warehouses:write']);
    expect((await http(api.url, 'DELETE', `${W}/${theirs}`, { key: writer })).status).toBe(404);
    expect((await http(api.url, 'GET', `${W}/${theirs}`, { key: globex.key })).status).toBe(200);
  });

  it('a restricted key makes keys and portal sessions with its own permissions at most (403 otherwise, nothing written)', async () => {
    const own = ['inventory.warehouses:read', 'api_keys:write', 'portal_sessions:write'];
    const key = await keyWith(own);
    const count = async (table: string) =>
      (await sql(api, `SELECT count(*)::int AS n FROM ${table} WHERE company_uuid = $1`, [acme.uuid]))[0].n;
    const counts = async () => [await count('api_keys'), await count('portal_sessions')];
    const before = await counts();
    for (const [path, body, lacking] of [
      [
        '/int/v1/api-keys',
        { api_key: { permissions: ['inventory.warehouses:write'] } },
        'inventory.warehouses:write',
      ],
      // A wildcard wider than its own names the first permission of it the key lacks.
      ['/int/v1/api-keys', { api_key: { permissions: ['inventory.*'] } }, 'inventory.warehouse_docks:read'],
      ['/int/v1/api-keys', { permissions: ['*'] }, 'events:read'],
      [
        '/int/v1/portal-sessions',
        { portal_session: { permissions: ['fleet.drivers:read'] } },
        'fleet.drivers:read',
      ],
      ['/int/v1/portal-sessions', { portal_session: { read_only: true } }, 'events:read'],
      ['/int/v1/portal-sessions', {}, undefined],
    ] as const) {
      const res = await http(api.url, 'POST', path, { key, body });
      if (lacking === undefined) {
        // Without a list a session gets the key's own: allowed.
        expect(res.status).toBe(201);
        expect(res.body.portal_session.permissions).toEqual(own);
        await http(api.url, 'DELETE', `/int/v1/portal-sessions/${res.body.portal_session.uuid}`, { key });
        await sql(api, 'DELETE FROM portal_sessions WHERE uuid = $1', [res.body.portal_session.uuid]);
        continue;
      }
      expect({ path, body, status: res.status, error: res.body.errors[0] }).toEqual({
        path,
        body,
        status: 403,
        error: expect.objectContaining({ code: 'insufficient_permission', meta: { permission: lacking } }),
      });
    }
    expect(await counts()).toEqual(before);

    // Within its own: a restricted key, shown once, that holds exactly that.
    const made = await http(api.url, 'POST', '/int/v1/api-keys', {
      key,
      body: { api_key: { name: 'reader', permissions: ['inventory.warehouses:read'] } },
    });
    expect(made.status).toBe(201);
    expect(made.body.api_key).toMatchObject({
      prefix: 'wharf_rk_',
      permissions: ['inventory.warehouses:read'],
    });
    expect(made.body.api_key.key).toMatch(/^wharf_rk_[0-9A-Za-z]{36}$/);
    expect((await http(api.url, 'GET', W, { key: made.body.api_key.key })).status).toBe(200);
    const listed = await http(api.url, 'GET', '/int/v1/api-keys', { key: acme.key });
    expect(listed.body.api_keys.find((k: any) => k.uuid === made.body.api_key.uuid).permissions).toEqual([
      'inventory.warehouses:read',
    ]);
    // A name the catalog does not have is a 422 pointing at it.
    const unknown = await http(api.url, 'POST', '/int/v1/api-keys', {
      key: acme.key,
      body: { api_key: { permissions: ['inventory.warehouses:read', 'inventory.warehouses:fly'] } },
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors[0].source.pointer).toBe('/data/attributes/permissions/1');
  });

  it('GET /int/v1/session lists the caller’s permissions; a portal session with read permissions is read-only', async () => {
    const key = await keyWith(['inventory.*', 'portal_sessions:write']);
    const session = (await http(api.url, 'GET', '/int/v1/session', { key })).body.session;
    expect(session).toMatchObject({
      kind: 'api_key',
      read_only: false,
      permissions: ['inventory.*', 'portal_sessions:write'],
    });
    expect(session.granted).toEqual(
      // portal_sessions:write brings its read.
      catalog.filter((name) => name.startsWith('inventory.') || name.startsWith('portal_sessions:')),
    );
    const full = (await http(api.url, 'GET', '/int/v1/session', { key: acme.key })).body.session;
    expect(full).toMatchObject({ permissions: ['*'], granted: catalog, read_only: false });

    const opened = await http(api.url, 'POST', '/int/v1/portal-sessions', {
      key,
      body: { portal_session: { permissions: ['inventory.*:read'] } },
    });
    expect(opened.status).toBe(201);
    expect(opened.body.portal_session).toMatchObject({ read_only: true, permissions: ['inventory.*:read'] });
    const exchanged = await http(api.url, 'POST', '/int/v1/portal-sessions/exchange', {
      body: { token: opened.body.portal_session.token },
    });
    const cookie = exchanged.headers.get('set-cookie')!.split(';')[0];
    const as = (method: string, path: string, body?: unknown) =>
      http(api.url, method, path, { headers: { cookie, 'x-wharf-portal': '1' }, body });
    expect((await as('GET', '/int/v1/session')).body.session).toMatchObject({
      kind: 'portal',
      read_only: true,
      permissions: ['inventory.*:read'],
      granted: catalog.filter((name) => name.startsWith('inventory.') && name.endsWith(':read')),
    });
    expect((await as('GET', W)).status).toBe(200);
    const endpoints = await as('GET', '/int/v1/webhook-endpoints');
    expect(endpoints.body.errors[0]).toMatchObject({ meta: { permission: 'webhooks.endpoints:read' } });
  });

  it('x-wharf-permission names the permission in each operation, and the 403 response says what it means', async () => {
    const document = (await http(api.url, 'GET', '/docs-json')).body;
    expect(document.paths[W].post['x-wharf-permission']).toBe('inventory.warehouses:write');
    expect(document.paths[W].get['x-wharf-permission']).toBe('inventory.warehouses:read');
    expect(document.paths['/fleet/int/v1/orders/{uuid}/status'].post['x-wharf-permission']).toBe(
      'fleet.orders:dispatch',
    );
    expect(document.paths['/int/v1/webhook-endpoints/{uuid}/secret'].get['x-wharf-permission']).toBe(
      'webhooks.secrets:reveal',
    );
    expect(document.components.responses.Forbidden.description).toContain('insufficient_permission');
  });
});

describe('permissions: keys made before them', () => {
  it('keep working unchanged after the migration (["*"]); read-only portal sessions keep only reading', async () => {
    const config = testConfig();
    await ensureDatabase(config.databaseUrl);
    // The database as it was before the migration: every other migration applied.
    const manifests = composeWharf(config).manifests.map((manifest) => ({
      ...manifest,
      migrations: manifest.migrations?.filter(
        (migration) => migration.name !== 'AddPermissions1796185991606',
      ),
    }));
    await runMigrations(config.databaseUrl, manifests);
    const key = generateApiKey();
    const [company] = await query(config, "INSERT INTO companies (name) VALUES ('Before') RETURNING uuid");
    const [row] = await query(
      config,
      `INSERT INTO api_keys (company_uuid, name, prefix, last_four, key_hash) VALUES ($1, 'old', 'wharf_live_', $2, $3) RETURNING uuid`,
      [company.uuid, key.slice(-4), createHash('sha256').update(key).digest('hex')],
    );
    await query(
      config,
      `INSERT INTO portal_sessions (company_uuid, created_by_company_uuid, token_hash, read_only, expires_at)
       VALUES ($1, $1, $2, true, now() + interval '1 hour')`,
      [company.uuid, createHash('sha256').update(randomUUID()).digest('hex')],
    );

    const api = await startApi({ config });
    try {
      const [migrated] = await query(config, 'SELECT permissions FROM api_keys WHERE uuid = $1', [row.uuid]);
      expect(migrated.permissions).toEqual(['*']);
      const [session] = await query(
        config,
        'SELECT permissions FROM portal_sessions WHERE company_uuid = $1',
        [company.uuid],
      );
      expect(session.permissions).toEqual(['*:read', '*:reveal']);
      const created = await http(api.url, 'POST', W, { key, body: warehouse('After the migration') });
      expect(created.status).toBe(201);
      expect((await http(api.url, 'GET', W, { key })).body.warehouses).toHaveLength(1);
      expect((await http(api.url, 'POST', '/int/v1/api-keys', { key, body: {} })).body.api_key).toMatchObject(
        {
          prefix: 'wharf_live_',
          permissions: ['*'],
        },
      );
      expect((await http(api.url, 'GET', '/int/v1/session', { key })).body.session.permissions).toEqual([
        '*',
      ]);

      // A change of a key's permissions reaches every api process's cache, like a revocation.
      await query(
        config,
        `UPDATE api_keys SET permissions = '["inventory.warehouses:read"]' WHERE uuid = $1`,
        [row.uuid],
      );
      await eventually(
        async () => (await http(api.url, 'POST', W, { key, body: warehouse('Refused') })).status === 403,
      );
      expect((await http(api.url, 'GET', W, { key })).status).toBe(200);
    } finally {
      await api.close();
    }
  });
});

function safeJson(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
