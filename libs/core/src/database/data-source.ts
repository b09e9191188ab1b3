import { DataSource, DataSourceOptions } from 'typeorm';
import { ExtensionManifest } from '../extensions/extension.decorator';

/** One data source for the whole host: the entities and migrations of the core, the libraries and every loaded extension. */
export function dataSourceOptions(databaseUrl: string, manifests: ExtensionManifest[]): DataSourceOptions {
  return {
    type: 'postgres',
    url: databaseUrl,
    entities: manifests.flatMap((manifest) => manifest.entities),
    migrations: manifests.flatMap((manifest) => manifest.migrations ?? []),
    migrationsTableName: 'wharf_migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    logging: false,
    extra: { max: 20, connectionTimeoutMillis: 5000 },
  };
}

/** Runs every pending migration; returns the names of those applied. */
export async function runMigrations(databaseUrl: string, manifests: ExtensionManifest[]): Promise<string[]> {
  const dataSource = new DataSource(dataSourceOptions(databaseUrl, manifests));
  await dataSource.initialize();
  try {
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    return applied.map((migration) => migration.name);
  } finally {
    await dataSource.destroy();
  }
}
