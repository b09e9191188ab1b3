import { Type } from '@nestjs/common';
import { AppConfig } from '../config/config';
import { ExtensionManifest, extensionManifest } from '../extensions/extension.decorator';
import { checkExtensions } from './extension-checks';
import { assertNoConflicts, loadExtensions } from '../extensions/extension-loader';
import { checkMigrationFiles } from '../extensions/migration-files.check';
import type { ResourceDefinition } from '../resources/resource-definition';
import { PermissionCatalog } from '../extensions/permission-catalog';
import { CoreExtension } from './core.extension';

/** The namespace (`inventory/int/v1`) of each entity's extension, as the composed host mounts it. */
const namespaces = new WeakMap<object, string>();

/**
 * The path of a resource's collection as the api serves it (`/inventory/int/v1/warehouses`), in any process
 * of a composed host (a worker builds links to records with it); undefined for an entity no extension declares.
 */
export function resourceCollectionPath(def: ResourceDefinition): string | undefined {
  const namespace = namespaces.get(def.entity);
  return namespace === undefined ? undefined : `/${namespace}/${def.path}`;
}

/** Everything a process of the host is made of: built-in modules first, then the loaded extensions. */
export interface HostComposition {
  modules: Type[];
  manifests: ExtensionManifest[];
  /** The permissions of the modules, checked: every route of an extension names one the catalog has. */
  permissions: PermissionCatalog;
}

/**
 * @param builtIns modules of the libraries (e.g. webhooks) declared with @Extension
 * @param extensions explicit extension modules (tests); default: those named by EXTENSIONS
 */
export function composeHost(config: AppConfig, builtIns: Type[] = [], extensions?: Type[]): HostComposition {
  const modules = [CoreExtension, ...builtIns, ...(extensions ?? loadExtensions(config.extensions))];
  assertNoConflicts(modules);
  checkExtensions(modules);
  checkMigrationFiles(modules);
  const manifests = modules.map((module) => extensionManifest(module));
  const permissions = new PermissionCatalog(manifests);
  for (const manifest of manifests) {
    for (const entity of manifest.entities ?? []) namespaces.set(entity, manifest.namespace);
  }
  return { modules, manifests, permissions };
}
