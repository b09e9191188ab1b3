import { DataSource } from 'typeorm';
import { ExtensionError } from '../extensions/extension-checks';
import { ExtensionManifest } from '../extensions/extension.decorator';
import { resourceModel } from '../resources/resource-model.decorator';
import { dataSourceOptions } from './data-source';

/** Type families PostgreSQL converts between without loss for our purposes (an enum is stored as text). */
function family(type: string): string {
  const t = type.toLowerCase();
  if (
    [
      'character varying',
      'varchar',
      'text',
      'character',
      'char',
      'enum',
      'simple-enum',
      'user-defined',
    ].includes(t)
  )
    return 'text';
  if (['integer', 'int', 'int4', 'smallint', 'int2', 'bigint', 'int8'].includes(t)) return 'integer';
  if (['double precision', 'real', 'numeric', 'decimal', 'float', 'float4', 'float8'].includes(t))
    return 'number';
  if (t.startsWith('timestamp')) return 'timestamp';
  if (t === 'json' || t === 'jsonb') return 'json';
  return t;
}

interface DbColumn {
  table_name: string;
  column_name: string;
  data_type: string;
}

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
    const owner = new Map<unknown, string>();
    for (const manifest of manifests)
      for (const entity of manifest.entities) owner.set(entity, manifest.name);
    const tables = dataSource.entityMetadatas.map((metadata) => metadata.tableName);
    const rows: DbColumn[] = await dataSource.query(
      `SELECT table_name, column_name, data_type FROM information_schema.columns
        WHERE table_schema = current_schema() AND table_name = ANY($1)`,
      [tables],
    );
    const existing = new Map<string, Map<string, string>>();
    for (const row of rows) {
      const columns = existing.get(row.table_name) ?? new Map<string, string>();
      columns.set(row.column_name, row.data_type);
      existing.set(row.table_name, columns);
    }
    for (const metadata of dataSource.entityMetadatas) {
      const model = resourceModel(metadata.target);
      const where = model ? `resource "${model.name}"` : `entity ${metadata.name}`;
      const extension = owner.get(metadata.target) ?? '?';
      const columns = existing.get(metadata.tableName);
      if (!columns) {
        throw new ExtensionError(
          extension,
          where,
          `table "${metadata.tableName}" does not exist in the database: its migration is missing, not listed in the extension's \`migrations\`, or not run yet (npm run migrate)`,
        );
      }
      for (const column of metadata.columns) {
        const declared = dataSource.driver.normalizeType(column);
        const stored = columns.get(column.databaseName);
        const field = `${where}, field "${column.propertyName}"`;
        if (stored === undefined) {
          throw new ExtensionError(
            extension,
            field,
            `column ${metadata.tableName}.${column.databaseName} does not exist in the database: add a migration (npm run cli -- migration:generate ${extension} <Name>) and list it in the extension's \`migrations\``,
          );
        }
        if (family(declared) !== family(stored)) {
          throw new ExtensionError(
            extension,
            field,
            `column ${metadata.tableName}.${column.databaseName} is ${stored} in the database but the entity declares ${declared}`,
          );
        }
      }
    }
  } finally {
    await dataSource.destroy();
  }
}
