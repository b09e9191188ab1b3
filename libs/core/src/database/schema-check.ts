import { DataSource } from 'typeorm';
import { ExtensionManifest } from '../extensions/extension.decorator';
import { dataSourceOptions } from './data-source';
import { compareSchema, problemError } from './schema-diff';

/**
 * After migrations: every column of every loaded entity exists in the database with a compatible type.
 * A column added to an entity without a migration, or a migration left out of `migrations:`, fails the
 * start here with one line instead of a 500 on the first request that touches it.
 */
export async function checkSchema(databaseUrl: string, manifests: ExtensionManifest[]): Promise<void> {
  const options = dataSourceOptions(databaseUrl, manifests);
  const dataSource = new DataSource({ ...options, extra: { ...options.extra, max: 1 } });
  await dataSource.initialize();
  try {
    const [problem] = await compareSchema(dataSource, manifests, { nullability: false });
    if (problem) throw problemError(problem);
  } finally {
    await dataSource.destroy();
  }
}
