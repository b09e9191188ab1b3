import { Type } from '@nestjs/common';
import {
  PERMISSION,
  PERMISSION_NAME,
  PermissionGrants,
  compileGrants,
  type PermissionCheck,
  isWildcard,
  parsePermission,
  patternWithin,
  permissionMatches,
} from '../access/permissions';
import { READ_ONLY_METHODS } from '../common/read-only-methods';
import { IS_PUBLIC } from '../access/public.decorator';
import { pluralPath, rootKeys } from '../resources/naming';
import { resourceControllerInfo } from '../resources/resource-controller';
import { resourceModel, resourceScope, setResourceScope } from '../resources/resource-model.decorator';
import { ControllerRoute, controllerRoutes } from './controller-routes';
import { ExtensionError } from './extension-error';
import type { ExtensionManifest } from './extension.decorator';

/** One permission of the catalog, as GET /int/v1/permissions lists it. */
export interface PermissionEntry {
  name: string;
  description: string;
  /** The extension that declares it (its resource's, or its manifest's). */
  extension: string;
}

/** What a generated resource route needs. */
const GENERATED: Record<string, 'read' | 'write'> = {
  list: 'read',
  find: 'read',
  create: 'write',
  update: 'write',
  patch: 'write',
  remove: 'write',
};
const GRANTS_CACHED = 1_000;

const metadata = (key: string, target: object): unknown => Reflect.getMetadata(key, target);

/**
 * The permissions of the loaded extensions: `<extension>.<resource plural>:read|write` of each resource
 * (`:write` when a route of it writes), the ones each manifest declares, and the rule giving every route its
 * permission. Built from the manifests, once: a declaration or route that does not fit fails the boot
 * with one line (ExtensionError).
 */
export class PermissionCatalog {
  private readonly byName = new Map<string, PermissionEntry>();
  private readonly grantsCache = new Map<string, PermissionGrants>();
  readonly entries: PermissionEntry[];
  readonly names: string[];

  constructor(manifests: ExtensionManifest[]) {
    for (const manifest of manifests) this.addResources(manifest);
    for (const manifest of manifests) this.addWrites(manifest);
    for (const manifest of manifests) this.addDeclared(manifest);
    this.entries = [...this.byName.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
    this.names = this.entries.map((entry) => entry.name);
    for (const manifest of manifests) this.checkRoutes(manifest);
    for (const manifest of manifests) this.checkEvents(manifest);
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  /**
   * The permission a route needs: its method's @Permission, else a resource controller's rule (a generated
   * route's read or write; a route of its own: read for GET, write otherwise), else its controller's
   * @Permission. null: none (@Public, @SignedIn); undefined: it names none, which fails the boot.
   */
  routePermission(controller: Type, route: Pick<ControllerRoute, 'name' | 'handler' | 'method'>) {
    if (metadata(IS_PUBLIC, route.handler) === true || metadata(IS_PUBLIC, controller) === true) return null;
    const own = metadata(PERMISSION, route.handler) as string | false | undefined;
    if (own !== undefined) return own === false ? null : own;
    const resource = resourceControllerInfo(controller);
    const scope = resource && resourceScope(resource.entity);
    if (scope) {
      const action = GENERATED[route.name] ?? (READ_ONLY_METHODS.has(route.method) ? 'read' : 'write');
      return `${scope}:${action}`;
    }
    const shared = metadata(PERMISSION, controller) as string | false | undefined;
    return shared === undefined ? undefined : shared === false ? null : shared;
  }

  /** What `patterns` hold, compiled (cached per distinct list: keys share them). */
  grants(patterns: readonly string[]): PermissionGrants {
    const key = patterns.join('\n');
    let grants = this.grantsCache.get(key);
    if (!grants) {
      grants = compileGrants(patterns, this.names);
      if (this.grantsCache.size >= GRANTS_CACHED) this.grantsCache.clear();
      this.grantsCache.set(key, grants);
    }
    return grants;
  }

  /** Why each of `patterns` is not a permission or wildcard of this catalog: [index, detail] pairs. */
  problems(patterns: readonly string[]): [number, string][] {
    const problems: [number, string][] = [];
    patterns.forEach((pattern, index) => {
      const parsed = typeof pattern === 'string' ? parsePermission(pattern) : undefined;
      if (!parsed)
        problems.push([
          index,
          `${JSON.stringify(pattern)} is not a permission: use names of GET /int/v1/permissions, or wildcards such as "inventory.*", "*:read" or "*".`,
        ]);
      else if (!isWildcard(pattern) && !this.byName.has(pattern))
        problems.push([
          index,
          `"${pattern}" is not a permission of this platform: GET /int/v1/permissions lists them.`,
        ]);
      else if (!this.names.some((name) => permissionMatches(parsed, name)))
        problems.push([index, `"${pattern}" matches no permission of this platform.`]);
    });
    return problems;
  }

  /**
   * The first of `requested` (valid patterns) that `holder` does not hold, as the permission to name in a
   * 403; undefined when it holds them all. A name is held when the holder's grants have it; a wildcard when
   * one of the holder's patterns is at least as wide (so it also covers the permissions still to come).
   */
  lacking(holder: PermissionCheck, requested: readonly string[]): string | undefined {
    if (holder.all) return undefined;
    const own = holder.patterns.map(parsePermission).filter((pattern) => pattern !== undefined);
    for (const pattern of requested) {
      if (!isWildcard(pattern)) {
        if (!holder.has(pattern)) return pattern;
        continue;
      }
      const parsed = parsePermission(pattern)!;
      if (own.some((outer) => patternWithin(parsed, outer))) continue;
      return this.names.find((name) => permissionMatches(parsed, name) && !holder.has(name)) ?? pattern;
    }
    return undefined;
  }

  private add(entry: PermissionEntry): void {
    const previous = this.byName.get(entry.name);
    if (previous)
      throw new ExtensionError(
        entry.extension,
        `permission "${entry.name}"`,
        `declared twice (also by extension "${previous.extension}")`,
      );
    this.byName.set(entry.name, entry);
  }

  private addResources(manifest: ExtensionManifest): void {
    for (const entity of manifest.entities) {
      const model = resourceModel(entity);
      if (!model) continue;
      const scope = `${manifest.name}.${model.permission ?? rootKeys(model.name).plural}`;
      if (!PERMISSION_NAME.test(`${scope}:read`))
        throw new ExtensionError(
          manifest.name,
          `resource "${model.name}"`,
          `"${scope}:read" cannot be a permission's name: lower-case words joined by dots, underscores or dashes`,
        );
      setResourceScope(entity, scope);
      const words = pluralPath(model.name).replace(/-/g, ' ');
      this.add({
        name: `${scope}:read`,
        description: `Read ${words}${model.events === false ? '' : ' and receive their webhook events'}`,
        extension: manifest.name,
      });
    }
  }

  /** A resource's `:write`, once a route of its extension needs it. */
  private addWrites(manifest: ExtensionManifest): void {
    const scopes = new Map(manifest.entities.map((entity) => [resourceScope(entity), entity]));
    for (const controller of manifest.controllers ?? []) {
      for (const route of controllerRoutes(controller)) {
        const name = this.routePermission(controller, route);
        const scope = name?.endsWith(':write') ? name.slice(0, -':write'.length) : undefined;
        const entity = scope === undefined ? undefined : scopes.get(scope);
        if (!entity || this.byName.has(name!)) continue;
        const words = pluralPath(resourceModel(entity)!.name).replace(/-/g, ' ');
        this.add({
          name: name!,
          description: `Create, change and delete ${words}`,
          extension: manifest.name,
        });
      }
    }
  }

  private addDeclared(manifest: ExtensionManifest): void {
    for (const declared of manifest.permissions ?? []) {
      if (!PERMISSION_NAME.test(declared.name))
        throw new ExtensionError(
          manifest.name,
          `permission "${declared.name}"`,
          'not a permission name: "<scope>:<action>" in lower-case words, e.g. "yard.trailers:seal"',
        );
      this.add({ name: declared.name, description: declared.description, extension: manifest.name });
    }
  }

  private checkEvents(manifest: ExtensionManifest): void {
    for (const event of manifest.events ?? []) {
      if (event.permission !== undefined && !this.byName.has(event.permission))
        throw new ExtensionError(
          manifest.name,
          `event "${event.name}"`,
          `its permission "${event.permission}" is declared by no loaded extension`,
        );
    }
  }

  private checkRoutes(manifest: ExtensionManifest): void {
    for (const controller of manifest.controllers ?? []) {
      for (const route of controllerRoutes(controller)) {
        const name = this.routePermission(controller, route);
        const where = `route ${route.method} ${route.path} (${controller.name}.${route.name})`;
        if (name === undefined)
          throw new ExtensionError(
            manifest.name,
            where,
            'names no permission: give it @Permission("<permission>") (one its extension declares in `permissions`), @SignedIn() or @Public()',
          );
        if (name !== null && !this.byName.has(name))
          throw new ExtensionError(
            manifest.name,
            where,
            `needs the permission "${name}", which no loaded extension declares (add it to the manifest's \`permissions\`)`,
          );
      }
    }
  }
}
