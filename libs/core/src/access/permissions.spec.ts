import { compileGrants, parsePermission, patternWithin, permissionMatches } from './permissions';

const NAMES = [
  'events:read',
  'fleet.drivers:read',
  'fleet.drivers:write',
  'fleet.orders:dispatch',
  'inventory.warehouses:read',
  'inventory.warehouses:write',
  'webhooks.logs:read',
];

describe('permission names and wildcards', () => {
  it.each([
    'inventory.warehouses:read',
    'inventory.*',
    '*:read',
    'inventory.warehouses:*',
    'inventory.*:read',
    '*',
  ])('reads %p', (text) => expect(parsePermission(text)).toBeDefined());

  it.each([
    '',
    'inventory',
    'inventory.warehouses',
    'Inventory.x:read',
    'a:b:c',
    'inv*:read',
    '**',
    'a.*.b:read',
  ])('refuses %p', (text) => expect(parsePermission(text)).toBeUndefined());

  it('a wildcard stands for the permissions of its extension, its resource or its action', () => {
    const matching = (text: string) =>
      NAMES.filter((name) => permissionMatches(parsePermission(text)!, name));
    expect(matching('inventory.*')).toEqual(['inventory.warehouses:read', 'inventory.warehouses:write']);
    expect(matching('*:read')).toEqual([
      'events:read',
      'fleet.drivers:read',
      'inventory.warehouses:read',
      'webhooks.logs:read',
    ]);
    expect(matching('fleet.orders:*')).toEqual(['fleet.orders:dispatch']);
    expect(matching('fleet.*:read')).toEqual(['fleet.drivers:read']);
    expect(matching('*')).toEqual(NAMES);
    // `inventory.*` is not `inventory_x.*`; an extension's name may have dashes.
    expect(permissionMatches(parsePermission('inventory.*')!, 'inventory_x.things:read')).toBe(false);
    expect(permissionMatches(parsePermission('acme-yards.*')!, 'acme-yards.yards:read')).toBe(true);
  });

  it('one pattern is within another only when every permission it stands for, present or future, is', () => {
    const within = (inner: string, outer: string) =>
      patternWithin(parsePermission(inner)!, parsePermission(outer)!);
    expect(within('inventory.warehouses:read', 'inventory.*')).toBe(true);
    expect(within('inventory.*:read', 'inventory.*')).toBe(true);
    expect(within('inventory.*:read', '*:read')).toBe(true);
    expect(within('inventory.*', '*:read')).toBe(false);
    expect(within('*:read', 'inventory.*')).toBe(false);
    expect(within('*', 'inventory.*')).toBe(false);
    expect(within('fleet.orders:*', 'fleet.*')).toBe(true);
  });
});

describe('grants', () => {
  it('hold what their patterns stand for, and a write brings the read of the same resource', () => {
    const grants = compileGrants(['inventory.warehouses:write', 'fleet.orders:*'], NAMES);
    expect(grants.all).toBe(false);
    expect([...grants.names].sort()).toEqual([
      'fleet.orders:dispatch',
      'inventory.warehouses:read',
      'inventory.warehouses:write',
    ]);
    expect(grants.has('fleet.drivers:read')).toBe(false);
  });

  it('`*` holds every permission, present and future', () => {
    const grants = compileGrants(['*'], NAMES);
    expect(grants.all).toBe(true);
    expect(grants.has('anything.new:read')).toBe(true);
  });
});
