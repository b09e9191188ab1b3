import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { isAbsolute, join, parse, relative } from 'node:path';
import { Type } from '@nestjs/common';
import { ExtensionError } from './extension-error';
import { extensionManifest } from './extension.decorator';

/** The folder of each loaded extension's migration files, recorded by the loader. */
const migrationDirs = new WeakMap<Type, string>();

export function recordMigrationsDir(extension: Type, dir: string): void {
  migrationDirs.set(extension, dir);
}

/** Where `migration:generate` writes an extension's migrations; undefined for one not loaded from EXTENSIONS. */
export function migrationsDirOf(extension: Type): string | undefined {
  return migrationDirs.get(extension);
}

const MIGRATION_FILE = /^[^.].*(?<!\.d)\.(ts|js|cjs|mjs)$/;
const SPEC_FILE = /\.(spec|test)\.[cm]?[jt]s$/;

/** A migration file of `dir` and the classes it declares. */
interface MigrationFile {
  file: string;
  classes: string[];
}

function migrationFiles(dir: string): MigrationFile[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isFile() && MIGRATION_FILE.test(entry.name) && !SPEC_FILE.test(entry.name))
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const file = join(dir, name);
      // Read, not required: a TypeScript file is found whether or not this process can load it.
      const classes = [...readFileSync(file, 'utf8').matchAll(/\bclass\s+([A-Za-z_$][\w$]*)/g)].map(
        (match) => match[1],
      );
      return { file, classes };
    });
}

function shown(file: string): string {
  const path = relative(process.cwd(), file);
  return path.startsWith('..') || isAbsolute(path) ? file : path;
}

/** An ExtensionError for each migration file of a loaded extension that its `migrations` do not list. */
export function unlistedMigrations(modules: Type[]): ExtensionError[] {
  const errors: ExtensionError[] = [];
  for (const module of modules) {
    const dir = migrationDirs.get(module);
    if (!dir) continue;
    const manifest = extensionManifest(module);
    const listed = new Set((manifest.migrations ?? []).map((migration) => migration.name));
    for (const { file, classes } of migrationFiles(dir)) {
      if (!classes.length || classes.some((name) => listed.has(name))) continue;
      const name = classes.find((candidate) => /\d{13}$/.test(candidate)) ?? classes[0];
      const from = `./migrations/${parse(file).name}`;
      errors.push(
        new ExtensionError(
          manifest.name,
          `migration file ${shown(file)}`,
          `${name} is not listed in the extension's \`migrations\`, so it is never run: add ${name} to \`migrations: [...]\` of @Extension({ name: '${manifest.name}' }), with import { ${name} } from '${from}';`,
        ),
      );
    }
  }
  return errors;
}

/**
 * A migration file no extension lists fails the start (and `npm run migrate`), naming the file and the
 * line to add: otherwise migrate reports the database up to date and the entity's column is missing.
 */
export function checkMigrationFiles(modules: Type[]): void {
  const [first, ...more] = unlistedMigrations(modules);
  if (!first) return;
  // Every such file at once, a line each: an author who generated two fixes both in one go.
  for (const other of more) first.message += `\n${other.message}`;
  throw first;
}
