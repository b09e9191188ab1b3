import { ModuleMetadata, Type } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Module } from '@nestjs/common';
import type { PermissionDeclaration } from '../access/permissions';
import { resourceModel } from '../resources/resource-model.decorator';

/** A custom domain event an extension can emit, listed in the webhook event catalog. */
export interface EventDeclaration {
  name: string;
  description: string;
  example?: Record<string, unknown>;
  /** Fields of `data` that may be null: the example shows one value, and the event's schema admits null too. */
  nullable?: string[];
  /**
   * The permission a caller needs to receive or read the event (an endpoint subscribed to it, the events
   * API); default: the read permission of the resource its name begins with (`trailer.sealed`:
   * `<extension>.trailers:read`), else `events:read`.
   */
  permission?: string;
}

export interface ExtensionManifest {
  /** Package-style name, also the first path segment: `inventory` → `/inventory/int/v1/...`. */
  name: string;
  /** Route prefix shared by the extension's resources; defaults to `<name>/int/v1`. */
  namespace?: string;
  entities: Type[];
  migrations?: Type[];
  controllers?: Type[];
  /** Nest providers; the `hooks` of the extension's resource models are added automatically. */
  providers?: ModuleMetadata['providers'];
  imports?: ModuleMetadata['imports'];
  exports?: ModuleMetadata['exports'];
  events?: EventDeclaration[];
  /**
   * Permissions beyond the read and write each resource gets, for the extension's own actions
   * (`fleet.orders:dispatch`), named by its routes with @Permission.
   */
  permissions?: PermissionDeclaration[];
}

const MANIFEST = Symbol('wharf:extension');

/**
 * Declares a Nest module as a Wharf extension (like Vendure's `@VendurePlugin`): the class becomes a module
 * with the extension's controllers and repositories, and carries its manifest for the host to read.
 */
export function Extension(manifest: ExtensionManifest): ClassDecorator {
  return (target) => {
    Reflect.defineMetadata(MANIFEST, { namespace: `${manifest.name}/int/v1`, ...manifest }, target);
    const providers = manifest.providers ?? [];
    const hooks = manifest.entities
      .flatMap((entity) => [resourceModel(entity)?.hooks, resourceModel(entity)?.visibility?.by])
      .filter((hook): hook is Type => hook !== undefined && !providers.includes(hook));
    Module({
      imports: [TypeOrmModule.forFeature(manifest.entities), ...(manifest.imports ?? [])],
      controllers: manifest.controllers ?? [],
      providers: [...providers, ...new Set(hooks)],
      exports: manifest.exports ?? [],
    })(target);
  };
}

export function extensionManifest(
  target: unknown,
): Required<Pick<ExtensionManifest, 'namespace'>> & ExtensionManifest {
  return Reflect.getMetadata(MANIFEST, target as object);
}

export function isExtension(target: unknown): target is Type {
  return typeof target === 'function' && Reflect.hasMetadata(MANIFEST, target);
}
