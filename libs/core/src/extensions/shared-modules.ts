import Module from 'node:module';
import { join, sep } from 'node:path';

/**
 * Packages an extension must share with the host: decorators record their metadata in module-level
 * storages (TypeORM's entities, class-validator's rules, Nest's injection tokens, the SDK's own markers),
 * so a second copy loaded by an extension would register into storages the host never reads.
 */
/** The SDK's package name, as extensions import it (and generated code writes it). */
export const SDK_PACKAGE = '@wharf/core';

export const SHARED_PACKAGES = [
  SDK_PACKAGE,
  '@nestjs/common',
  '@nestjs/core',
  '@nestjs/typeorm',
  '@nestjs/swagger',
  'typeorm',
  'class-validator',
  'class-transformer',
  'reflect-metadata',
  'rxjs',
];

/** `@scope/name/deep/path` → `@scope/name`; `name/deep` → `name`. */
function packageOf(request: string): string {
  const parts = request.split('/');
  return request.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

type Resolve = (request: string, parent: Module | undefined, isMain: boolean, options?: unknown) => string;
const moduleInternals = Module as unknown as { _resolveFilename: Resolve };

let installed = false;

/**
 * Makes every module outside the host resolve the shared packages to the host's own copies: an extension
 * installed anywhere (its own node_modules, a global prefix) declares them as peer dependencies and gets
 * exactly the instances the host runs, whether or not it brought copies of its own.
 */
export function shareHostModules(): void {
  if (installed) return;
  installed = true;
  const coreEntry = join(__dirname, '..', 'index');
  // The host's node_modules (where its typeorm is): packages in it keep resolving on their own.
  const typeorm = require.resolve('typeorm');
  const marker = `${sep}node_modules${sep}`;
  const hostModules = typeorm.slice(0, typeorm.lastIndexOf(marker) + marker.length);
  const original = moduleInternals._resolveFilename;
  moduleInternals._resolveFilename = function (request, parent, isMain, options) {
    const shared =
      !request.startsWith('.') &&
      SHARED_PACKAGES.includes(packageOf(request)) &&
      !parent?.filename?.startsWith(hostModules);
    if (!shared) return original.call(this, request, parent, isMain, options);
    if (request === '@wharf/core') return original.call(this, coreEntry, module, isMain);
    if (request.startsWith('@wharf/core/'))
      return original.call(this, join(coreEntry, '..', request.slice('@wharf/core/'.length)), module, isMain);
    // Resolved as if the host itself asked: its node_modules, its versions.
    return original.call(this, request, module, isMain);
  };
}
