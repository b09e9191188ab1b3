import { DataSource } from 'typeorm';
import { ExtensionManifest } from '../extensions/extension.decorator';
import { dataSourceOptions } from './data-source';
import { compareSchema, problemError, problemLine } from './schema-compare';

/**
 * After migrations: every column of every loaded entity exists in the database with a compatible type.
 * A column added to an entity without a migration, or a migration left out of `migrations:`, fails the
 * start here with one line instead of a 500 on the first request that touches it. A missing list index
 * (see list-indexes.ts) only warns.
 */
export async function checkSchema(
  databaseUrl: string,
  manifests: ExtensionManifest[],
  warn: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<void> {
  const options = dataSourceOptions(databaseUrl, manifests);
  const dataSource = new DataSource({ ...options, extra: { ...options.extra, max: 1 } });
  await dataSource.initialize();
  try {
    const problems = await compareSchema(dataSource, manifests, { nullability: false });
    const [problem] = problems.filter((found) => found.kind !== 'index');
    if (problem) throw problemError(problem);
    // A missing list index is slow, not wrong: the api starts, and says which index and how to add it.
    const missing = problems.filter((found) => found.kind === 'index');
    if (missing.length) {
      warn(
        `warning: ${missing.length} list index(es) missing (list pages will read every row of a company): ${problemLine(missing[0])}${missing.length > 1 ? ` (and ${missing.length - 1} more: npm run cli -- migration:check)` : ''}`,
      );
    }
  } finally {
    await dataSource.destroy();
  }
}
