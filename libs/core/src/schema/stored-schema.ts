import { DataSource } from 'typeorm';

// What the migrated database holds, as compareSchema reads it.

/** Type families PostgreSQL converts between without loss for our purposes (an enum is stored as text). */
export function family(type: string): string {
  const t = type.toLowerCase();
  const text = ['character varying', 'varchar', 'text', 'character', 'char', 'enum', 'simple-enum'];
  if (text.includes(t) || t === 'user-defined') return 'text';
  if (['integer', 'int', 'int4', 'smallint', 'int2', 'bigint', 'int8'].includes(t)) return 'integer';
  if (['double precision', 'real', 'numeric', 'decimal', 'float', 'float4', 'float8'].includes(t))
    return 'number';
  if (t.startsWith('timestamp')) return 'timestamp';
  if (t === 'json' || t === 'jsonb') return 'json';
  return t;
}

export interface StoredColumn {
  type: string;
  nullable: boolean;
}

/** The columns of `tables`, by table then column name. */
export async function storedColumns(
  dataSource: DataSource,
  tables: string[],
): Promise<Map<string, Map<string, StoredColumn>>> {
  const rows: { table_name: string; column_name: string; data_type: string; is_nullable: string }[] =
    await dataSource.query(
      `SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns
        WHERE table_schema = current_schema() AND table_name = ANY($1)`,
      [tables],
    );
  const stored = new Map<string, Map<string, StoredColumn>>();
  for (const row of rows) {
    const columns = stored.get(row.table_name) ?? new Map<string, StoredColumn>();
    columns.set(row.column_name, { type: row.data_type, nullable: row.is_nullable === 'YES' });
    stored.set(row.table_name, columns);
  }
  return stored;
}

/** The `pg_indexes.indexdef` of every index of `tables`, by table. */
export async function storedIndexes(
  dataSource: DataSource,
  tables: string[],
): Promise<Map<string, string[]>> {
  const rows: { tablename: string; indexdef: string }[] = await dataSource.query(
    `SELECT tablename, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = ANY($1)`,
    [tables],
  );
  const stored = new Map<string, string[]>();
  for (const row of rows) stored.set(row.tablename, [...(stored.get(row.tablename) ?? []), row.indexdef]);
  return stored;
}
