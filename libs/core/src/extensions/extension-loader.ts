import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { Type } from '@nestjs/common';
import { getMetadataArgsStorage } from 'typeorm';
import { ConfigError } from '../config/config';
import { resourceModel } from '../resources/resource-model.decorator';
import { extensionManifest, isExtension } from './extension.decorator';
import { recordMigrationsDir } from './migration-files.check';
import { shareHostModules } from './shared-modules';

/** Where the repository's own extensions live (the same relative place in src and in dist). */
export const LOCAL_EXTENSIONS_DIR = resolve(__dirname, '../../../../extensions');

/** The sources of the repository's extensions, where `migration:generate` writes (dist/ is compiled from them). */
const SOURCE_EXTENSIONS_DIR =
  basename(dirname(LOCAL_EXTENSIONS_DIR)) === 'dist'
    ? resolve(LOCAL_EXTENSIONS_DIR, '../../extensions')
    : LOCAL_EXTENSIONS_DIR;

/** `migrations/` beside the extension's entry: in its sources when this is a build of the repository. */
function migrationsDir(local: string | undefined, entry: string): string {
  const source = local && join(SOURCE_EXTENSIONS_DIR, local, 'src');
  return join(source && existsSync(source) ? source : dirname(entry), 'migrations');
}

function localExtensionNames(): string[] {
  if (!existsSync(LOCAL_EXTENSIONS_DIR)) return [];
  return readdirSync(LOCAL_EXTENSIONS_DIR, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .filter((entry) =>
      ['index.ts', 'index.js'].some((file) =>
        existsSync(join(LOCAL_EXTENSIONS_DIR, entry.name, 'src', file)),
      ),
    )
    .map((entry) => entry.name)
    .sort();
}

function requireExtension(specifier: string): Type {
  const local = specifier.replace(/^@wharf\//, '');
  const localPath = join(LOCAL_EXTENSIONS_DIR, local, 'src');
  const isLocal = /^[a-z0-9-]+$/.test(local) && existsSync(localPath);
  let loaded: Record<string, unknown>;
  let entry: string;
  try {
    entry = require.resolve(isLocal ? localPath : specifier);
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    loaded = require(entry);
  } catch (error) {
    throw new ConfigError(
      'EXTENSIONS',
      `names "${specifier}", which cannot be loaded: ${(error as Error).message.split('\n')[0]}`,
    );
  }
  const found = Object.values(loaded).find(isExtension);
  if (!found)
    throw new ConfigError(
      'EXTENSIONS',
      `names "${specifier}", which exports no @Extension() module of this host (an extension must not bundle its own @wharf/core: declare it as a peer dependency)`,
    );
  recordMigrationsDir(found, migrationsDir(isLocal ? local : undefined, entry));
  return found;
}

/** Loads the extensions named in EXTENSIONS (or every one under extensions/) by module specifier. */
export function loadExtensions(specifiers: string[] | undefined): Type[] {
  shareHostModules();
  return (specifiers ?? localExtensionNames()).map(requireExtension);
}

/** Two extensions may not declare the same resource, entity or table: fail at start naming both. */
export function assertNoConflicts(modules: Type[]): void {
  const owners = new Map<string, string>();
  const claim = (key: string, owner: string) => {
    const previous = owners.get(key);
    if (previous && previous !== owner) {
      throw new ConfigError(
        'EXTENSIONS',
        `conflict: ${key} is declared by both "${previous}" and "${owner}"`,
      );
    }
    owners.set(key, owner);
  };
  const tables = getMetadataArgsStorage().tables;
  for (const module of modules) {
    const manifest = extensionManifest(module);
    for (const entity of manifest.entities) {
      claim(`entity ${entity.name}`, manifest.name);
      const table = tables.find((t) => t.target === entity)?.name;
      if (table) claim(`table ${table}`, manifest.name);
      const model = resourceModel(entity);
      if (model) claim(`resource "${model.name}"`, manifest.name);
    }
  }
}
