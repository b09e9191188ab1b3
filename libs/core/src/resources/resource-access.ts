import { insufficientPermission } from '../access/permissions';
import { ATTRIBUTES_POINTER } from '../common/pointer';
import { type PermissionCheck, RequestContext } from '../tenancy/request-context';
import type { EmbedInfo, ResourceDefinition } from './resource-definition';

// What a caller must hold beyond its route's permission: a record carries the records it embeds (an order
// its driver), so reading them is a read of theirs, and a body may write them.

/** What a body writes through embedded relationships (body-reader's WriteInput). */
interface NestedInput {
  toOne: ReadonlyMap<EmbedInfo, { uuid?: string; values: Record<string, unknown> } | null>;
  toMany: ReadonlyMap<EmbedInfo, unknown[]>;
}

/** An embedded relationship whose records are another resource's, and that resource's read permission. */
interface EmbeddedRead {
  property: string;
  read: string;
}

const embeddedOf = new WeakMap<ResourceDefinition, readonly EmbeddedRead[]>();

/** The embeds of `def` read with another resource's permission (one level: an embedded record embeds nothing). */
function readsOfEmbeds(def: ResourceDefinition): readonly EmbeddedRead[] {
  let reads = embeddedOf.get(def);
  if (!reads) {
    reads = def.embeds.flatMap((embed) => {
      const scope = embed.target().scope;
      return scope === undefined || scope === def.scope
        ? []
        : [{ property: embed.property, read: `${scope}:read` }];
    });
    embeddedOf.set(def, reads);
  }
  return reads;
}

/** The read permission of each resource `def` embeds: reading its records reads theirs. */
export function embeddedReads(def: ResourceDefinition): string[] {
  return [...new Set(readsOfEmbeds(def).map(({ read }) => read))];
}

const hiddenOf = new WeakMap<PermissionCheck, Map<ResourceDefinition, readonly string[]>>();

/**
 * The embedded relationships of `def` whose records the caller may not read: its answers leave them out
 * (a key reading orders without `fleet.drivers:read` gets each order without its `driver`). Empty for a
 * caller holding every permission; cached per compiled grants, which keys with the same list share.
 */
export function hiddenEmbeds(def: ResourceDefinition, grants: PermissionCheck): readonly string[] {
  if (grants.all || !def.embeds.length) return [];
  let byDef = hiddenOf.get(grants);
  if (!byDef) hiddenOf.set(grants, (byDef = new Map()));
  let hidden = byDef.get(def);
  if (!hidden) {
    hidden = readsOfEmbeds(def)
      .filter(({ read }) => !grants.has(read))
      .map(({ property }) => property);
    byDef.set(def, hidden);
  }
  return hidden;
}

/**
 * Refuses a client's body that writes records the caller may not write through an embedded relationship:
 * creating or changing an embedded record, or making a to-many list exact (it may delete), needs the
 * target's `:write`. Linking an existing record by its uuid alone (`"driver": {"uuid": …}`, as
 * `driver_uuid` does) writes only the record the route writes. Nothing is checked outside a request (a
 * CLI, the worker) or for a caller holding every permission.
 */
export function checkNestedWrites(def: ResourceDefinition, input: NestedInput): void {
  const grants = RequestContext.current()?.grants;
  if (!grants || grants.all) return;
  const need = (embed: EmbedInfo, what: string) => {
    const scope = embed.target().scope;
    const permission = `${scope}:write`;
    if (scope === undefined || grants.has(permission)) return;
    throw insufficientPermission(
      permission,
      `The body's "${embed.property}" ${what}: this needs the permission ${permission}, which this key or session does not have.`,
      `${ATTRIBUTES_POINTER}/${embed.property}`,
    );
  };
  for (const [embed, item] of input.toOne) {
    const linkOnly = item === null || (item.uuid !== undefined && Object.keys(item.values).length === 0);
    if (!linkOnly) need(embed, `creates or changes a ${embed.target().name}`);
  }
  for (const embed of input.toMany.keys())
    need(embed, `sets the ${def.name}'s ${embed.property} (creating, changing and deleting them)`);
}
