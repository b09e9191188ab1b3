import { DataSource, DataSourceOptions } from 'typeorm';
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

/** Any number with which no other application takes an advisory lock: "wharf" in ASCII. */
const MIGRATION_LOCK = 0x7768617266;

/**
 * Runs every pending migration; returns the names of those applied. An advisory lock serialises
 * processes that migrate at the same moment (npm start, the CLI, several containers).
 */
export async function runMigrations(databaseUrl: string, manifests: ExtensionManifest[]): Promise<string[]> {
  const dataSource = new DataSource(dataSourceOptions(databaseUrl, manifests));
  await dataSource.initialize();
  const lock = dataSource.createQueryRunner();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    return applied.map((migration) => migration.name);
  } finally {
    await lock.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await lock.release();
    await dataSource.destroy();
  }
}
