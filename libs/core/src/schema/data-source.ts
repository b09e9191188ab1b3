import { DataSource, DataSourceOptions, Logger, MigrationInterface, QueryFailedError } from 'typeorm';
import { ExtensionManifest } from '../extensions/extension.decorator';

/**
 * PostgreSQL settings as a connection's `options` (`-c name=value` at connect), for a process whose
 * statements want something other than the server's defaults; undefined when there are none.
 */
export function connectionOptions(settings: Record<string, string>): string | undefined {
  const options = Object.entries(settings)
    .map(([name, value]) => `-c ${name}=${value}`)
    .join(' ');
  return options || undefined;
}

/**
 * One data source for the whole host: the entities and migrations of the core, the libraries and every
 * loaded extension. `settings`: PostgreSQL settings for every connection of its pool (connectionOptions).
 */
export function dataSourceOptions(
  databaseUrl: string,
  manifests: ExtensionManifest[],
  settings: Record<string, string> = {},
): DataSourceOptions {
  const options = connectionOptions(settings);
  return {
    type: 'postgres',
    url: databaseUrl,
    entities: manifests.flatMap((manifest) => manifest.entities),
    migrations: manifests.flatMap((manifest) => manifest.migrations ?? []),
    migrationsTableName: 'wharf_migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    logging: false,
    extra: { max: 20, connectionTimeoutMillis: 5000, ...(options ? { options } : {}) },
  };
}

const SILENT: Logger = {
  logQuery: () => undefined,
  logQueryError: () => undefined,
  logQuerySlow: () => undefined,
  logSchemaBuild: () => undefined,
  logMigration: () => undefined,
  log: () => undefined,
};

/** Any number with which no other application takes an advisory lock: "wharf" in ASCII. */
const MIGRATION_LOCK = 0x7768617266;

/**
 * Runs every pending migration; returns the names of those applied. An advisory lock serialises
 * processes that migrate at the same moment (npm start, the CLI, several containers).
 */
export async function runMigrations(databaseUrl: string, manifests: ExtensionManifest[]): Promise<string[]> {
  // TypeORM logs a failed migration itself, with a message of its own; MigrationFailedError says it once.
  const dataSource = new DataSource({ ...dataSourceOptions(databaseUrl, manifests), logger: SILENT });
  await dataSource.initialize();
  const lock = dataSource.createQueryRunner();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    for (const migration of dataSource.migrations) nameFailures(migration);
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    return applied.map((migration) => migration.name);
  } finally {
    await lock.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await lock.release();
    await dataSource.destroy();
  }
}

/**
 * A migration that failed: an operator's problem (data the migration did not expect, a statement the
 * database refuses), printed as one line naming the migration and the statement, never a stack trace.
 * Its transaction was rolled back; the migrations before it stay applied.
 */
export class MigrationFailedError extends Error {
  constructor(
    readonly migration: string,
    readonly statement: string | undefined,
    cause: unknown,
  ) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    const sql = statement ? `; statement: ${oneLine(statement)}` : '';
    super(`migration ${migration} failed: ${reason}${sql}`, { cause });
  }
}

/** Whitespace collapsed and long statements cut, so the message stays one readable line. */
function oneLine(sql: string, max = 500): string {
  const flat = sql.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/** Makes an error thrown by the migration's `up` name the migration (TypeORM rethrows it bare). */
function nameFailures(migration: MigrationInterface): void {
  const up = migration.up.bind(migration);
  const name = migration.name ?? migration.constructor.name;
  migration.up = async (queryRunner) => {
    try {
      await up(queryRunner);
    } catch (error) {
      throw new MigrationFailedError(
        name,
        error instanceof QueryFailedError ? error.query : undefined,
        error,
      );
    }
  };
}
