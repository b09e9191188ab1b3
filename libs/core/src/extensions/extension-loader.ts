import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Type } from '@nestjs/common';
import { getMetadataArgsStorage } from 'typeorm';
import { ConfigError } from '../config/config';
import { resourceModel } from '../resources/resource-model.decorator';
import { extensionManifest, isExtension } from './extension.decorator';
import { shareHostModules } from './shared-modules';

/** Where the repository's own extensions live (the same relative place in src and in dist). */
export const LOCAL_EXTENSIONS_DIR = resolve(__dirname, '../../../../extensions');

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
  let loaded: Record<string, unknown>;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    loaded = require(/^[a-z0-9-]+$/.test(local) && existsSync(localPath) ? localPath : specifier);
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
