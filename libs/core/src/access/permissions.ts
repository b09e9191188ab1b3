import { SetMetadata } from '@nestjs/common';
import { ApiError } from '../common/api-error';
import type { PermissionCheck } from '../tenancy/request-context';

export type { PermissionCheck } from '../tenancy/request-context';

// Permissions: their names and wildcards, what a caller holds, and the decorators naming a route's. The
// catalog of the loaded extensions is built in extensions/permission-catalog.ts.

// Extension names have dashes (`acme-yards`), resource parts underscores (`warehouse_sections`).
const WORD = '[a-z][a-z0-9_-]*';
/** `<scope>:<action>`, the scope dot-separated: `inventory.warehouses:read`, `fleet.orders:dispatch`, `events:read`. */
export const PERMISSION_NAME = new RegExp(`^${WORD}(\\.${WORD})*:${WORD}$`);
const PATTERN = new RegExp(`^(\\*|${WORD}(\\.${WORD})*(\\.\\*)?)(:(\\*|${WORD}))?$`);

/** Every permission, present and future: what keys had before permissions existed. */
export const ALL_PERMISSIONS = '*';
/** The actions that only read: what a read-only portal session or key holds. */
export const READ_ACTIONS = ['read', 'reveal'];
/** Every permission that only reads, present and future: what `read_only: true` stands for. */
export const READ_SET = READ_ACTIONS.map((action) => `*:${action}`);

/** Whether every permission of `names` (names or wildcards) only reads. */
export function onlyReads(names: readonly string[]): boolean {
  return names.every((name) => READ_ACTIONS.includes(name.slice(name.lastIndexOf(':') + 1)));
}

/** The error code of a call outside the caller's permissions. */
export const INSUFFICIENT_PERMISSION = 'insufficient_permission';

/** Where @Permission and @SignedIn put a route's permission (false: any authenticated caller). */
export const PERMISSION = 'wharf:permission';

/** The permission a route needs, on a method or on a controller (each of its routes that names none). */
export const Permission = (name: string) => SetMetadata(PERMISSION, name);

/** A route every authenticated caller may call whatever it holds (who it is, the permission catalog). */
export const SignedIn = () => SetMetadata(PERMISSION, false);

/** A permission an extension declares in its manifest, beside those of its resources. */
export interface PermissionDeclaration {
  name: string;
  /** One line: what it allows. */
  description: string;
}

/** A permission or wildcard, split: the scope may be `*` or end in `.*`, the action may be `*`. */
export interface PermissionPattern {
  scope: string;
  action: string;
}

/** `inventory.*`, `*:read`, `inventory.warehouses:*`, `inventory.*:read`, `*`, or a name; undefined otherwise. */
export function parsePermission(text: string): PermissionPattern | undefined {
  if (!PATTERN.test(text)) return undefined;
  const colon = text.indexOf(':');
  if (colon >= 0) return { scope: text.slice(0, colon), action: text.slice(colon + 1) };
  // Without an action only a wildcard of scopes: `inventory.warehouses` alone names nothing.
  return text === ALL_PERMISSIONS || text.endsWith('.*') ? { scope: text, action: '*' } : undefined;
}

export const isWildcard = (text: string) => text.includes('*');

/** Whether every scope `inner` stands for is one `outer` stands for. */
function scopeWithin(inner: string, outer: string): boolean {
  if (outer === '*') return true;
  if (inner === '*') return false;
  return outer.endsWith('.*') ? inner.startsWith(outer.slice(0, -1)) : inner === outer;
}

/** Whether every permission `inner` stands for is one `outer` stands for (a name stands for itself). */
export function patternWithin(inner: PermissionPattern, outer: PermissionPattern): boolean {
  return scopeWithin(inner.scope, outer.scope) && (outer.action === '*' || outer.action === inner.action);
}

/** Whether the permission `name` is one of those `pattern` stands for. */
export function permissionMatches(pattern: PermissionPattern, name: string): boolean {
  const colon = name.lastIndexOf(':');
  return patternWithin({ scope: name.slice(0, colon), action: name.slice(colon + 1) }, pattern);
}

/**
 * What a key or portal session holds, compiled once per cached credential against the catalog: the
 * permission names its patterns stand for (a `:write` brings the same scope's `:read`), so a request's
 * check is one Set lookup, and `all` (`*`) none.
 */
export class PermissionGrants implements PermissionCheck {
  constructor(
    /** As stored: names and wildcards. */
    readonly patterns: readonly string[],
    readonly all: boolean,
    readonly names: ReadonlySet<string>,
  ) {}

  has(permission: string): boolean {
    return this.all || this.names.has(permission);
  }
}

/** What `patterns` hold of the permissions `names` (a catalog's): a `:write` brings its `:read`. */
export function compileGrants(patterns: readonly string[], names: readonly string[]): PermissionGrants {
  const all = patterns.includes(ALL_PERMISSIONS);
  const held = new Set<string>();
  const known = new Set(names);
  for (const pattern of all ? [] : patterns) {
    const parsed = parsePermission(pattern);
    if (!parsed) continue;
    for (const name of names) {
      if (!permissionMatches(parsed, name)) continue;
      held.add(name);
      const read = name.replace(/:write$/, ':read');
      if (known.has(read)) held.add(read);
    }
  }
  return new PermissionGrants([...patterns], all, held);
}

/** The 403 of a call outside the caller's permissions: it names the permission the route needs. */
export function insufficientPermission(permission: string, detail?: string, pointer?: string): ApiError {
  return ApiError.of(
    403,
    detail ?? `This key or session does not have the permission ${permission}, which this call needs.`,
    { code: INSUFFICIENT_PERMISSION, meta: { permission }, ...(pointer && { source: { pointer } }) },
  );
}
