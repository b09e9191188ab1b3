import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { repositoryMigrationsDir } from './migration-dir';
import {
  AppConfig,
  ExtensionManifest,
  UnfilledColumnsError,
  compareSchema,
  dataSourceOptions,
  dropDatabase,
  ensureDatabase,
  extensionManifest,
  generateMigration,
  migrationsDirOf,
  preflight,
  problemLine,
  runMigrations,
} from '@wharf/core';
import { composeWharf } from '@wharf/webhooks';
import { DataSource } from 'typeorm';
import { ParsedArgs } from './args';
import { formatSource } from './format-source';
import { UsageError } from './args';

const log = (line: string) => process.stdout.write(`${line}\n`);

/**
 * Runs `work` against a scratch database on the configured server that holds exactly what the loaded
 * extensions' migrations create: the state both commands compare the entities with. Dropped afterwards.
 */
export async function withMigratedScratch<T>(
  config: AppConfig,
  manifests: ExtensionManifest[],
  work: (dataSource: DataSource) => Promise<T>,
): Promise<T> {
  await preflight(config, { databaseMustExist: false });
  const scratch = new URL(config.databaseUrl);
  scratch.pathname = `/wharf_migration_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const url = scratch.toString();
  await ensureDatabase(url);
  try {
    await runMigrations(url, manifests);
    const options = dataSourceOptions(url, manifests);
    const dataSource = new DataSource({ ...options, extra: { ...options.extra, max: 1 } });
    await dataSource.initialize();
    try {
      return await work(dataSource);
    } finally {
      await dataSource.destroy();
    }
  } finally {
    await dropDatabase(url);
  }
}

/** `migration:check`: fails, naming each column, when the loaded entities and their migrations disagree. */
export async function checkMigrations(config: AppConfig): Promise<void> {
  const { manifests } = composeWharf(config);
  const problems = await withMigratedScratch(config, manifests, (dataSource) =>
    compareSchema(dataSource, manifests),
  );
  for (const problem of problems) process.stderr.write(`${problemLine(problem)}\n`);
  if (problems.length) {
    process.exitCode = 1;
    return;
  }
  log(`Entities and migrations agree (${manifests.map((manifest) => manifest.name).join(', ')}).`);
}

/** `--backfill <column>=<SQL value>` (repeatable): what the existing rows of a new NOT NULL column get. */
function backfillOf(args: ParsedArgs): Record<string, string> {
  const backfill: Record<string, string> = {};
  for (const entry of args.repeated.backfill ?? []) {
    const separator = entry.indexOf('=');
    if (separator <= 0 || separator === entry.length - 1) {
      throw new UsageError(`--backfill wants <column>=<SQL value> (e.g. --backfill size=0), got "${entry}"`);
    }
    backfill[entry.slice(0, separator).trim()] = entry.slice(separator + 1).trim();
  }
  return backfill;
}

/**
 * `migration:generate <extension> <Name> [--dir D] [--backfill column=value]`: writes the migration of the
 * extension's schema difference; refuses, writing nothing, to make a column NOT NULL on an existing table
 * without a value for its existing rows.
 */
export async function generateMigrationFile(config: AppConfig, args: ParsedArgs): Promise<void> {
  const [extension, name] = args.positional;
  if (!extension || !name || !/^[A-Z][A-Za-z0-9]*$/.test(name)) {
    throw new UsageError(
      'usage: migration:generate <extension> <Name> [--dir D] [--backfill column=value] (Name in PascalCase, e.g. AddYardSlots)',
    );
  }
  const backfill = backfillOf(args);
  const { modules, manifests } = composeWharf(config);
  const module = modules.find((candidate) => extensionManifest(candidate).name === extension);
  if (!module) {
    throw new UsageError(
      `no loaded extension is named "${extension}" (loaded: ${manifests.map((m) => m.name).join(', ')})`,
    );
  }
  const migration = await withMigratedScratch(config, manifests, (dataSource) =>
    generateMigration(dataSource, manifests, extension, name, Date.now(), { backfill }),
  ).catch((error: unknown) => {
    if (!(error instanceof UnfilledColumnsError)) throw error;
    throw new UsageError(`nothing written: ${error.message.split('\n').join('\nwharf: ')}`);
  });
  if (!migration) {
    log(`The entities of "${extension}" and its migrations agree: nothing to generate.`);
    return;
  }
  const dir =
    typeof args.options.dir === 'string'
      ? args.options.dir
      : (migrationsDirOf(module) ?? repositoryMigrationsDir(process.cwd(), extension));
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true });
  const file = join(dir, migration.fileName);
  writeFileSync(file, await formatSource(file, migration.source));
  log(
    `Wrote ${relative(process.cwd(), file)}: list ${migration.className} in the \`migrations\` of "${extension}", then npm run migrate.`,
  );
}
