import { createHash } from 'node:crypto';
import { EntityMetadata } from 'typeorm';
import { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';
import { ResourceModelMetadata } from './resource-model.decorator';

/**
 * The indexes that keep a resource's list pages flat as a company grows, derived from its declaration:
 * - `sort`: one B-tree `(company_uuid, <column>, id)` per sortable column, so `?sort=<column>` (either
 *   direction, `id` breaking ties as the list does) and the default `-created_at` read the first page
 *   straight from the index: no Sort node, no read of the company's other rows;
 * - `search`: one trigram GIN `(<column> gin_trgm_ops)` per searchable column (pg_trgm), so `?query=`,
 *   a case-insensitive substring (`ILIKE '%…%'`), is an index lookup for patterns of 3+ characters.
 */
export interface ListIndex {
  table: string;
  column: string;
  kind: 'sort' | 'search';
  name: string;
  method: 'btree' | 'gin';
  /** The index's key list as PostgreSQL's `pg_get_indexdef` writes it (identifiers unquoted when plain). */
  keys: string;
}

/** PostgreSQL truncates identifiers at 63 bytes: longer names keep their start and a hash. */
function indexName(table: string, column: string, suffix: string): string {
  const name = `${table}_${column}_${suffix}`;
  if (name.length <= 63) return name;
  const hash = createHash('sha1').update(name).digest('hex').slice(0, 8);
  return `${name.slice(0, 63 - hash.length - suffix.length - 2)}_${hash}_${suffix}`;
}

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** The list indexes of a table whose sortable and searchable columns are given. */
export function listIndexes(table: string, sortable: string[], searchable: string[]): ListIndex[] {
  return [
    ...sortable.map((column): ListIndex => ({
      table,
      column,
      kind: 'sort',
      name: indexName(table, column, 'sort_idx'),
      method: 'btree',
      keys: `company_uuid, ${column}, id`,
    })),
    ...searchable.map((column): ListIndex => ({
      table,
      column,
      kind: 'search',
      name: indexName(table, column, 'trgm_idx'),
      method: 'gin',
      keys: `${column} gin_trgm_ops`,
    })),
  ];
}

/** The statement creating `index`. */
export function createIndexSql(index: ListIndex): string {
  const keys =
    index.kind === 'sort'
      ? `"company_uuid", ${quoteIdent(index.column)}, "id"`
      : `${quoteIdent(index.column)} gin_trgm_ops`;
  return `CREATE INDEX IF NOT EXISTS ${quoteIdent(index.name)} ON ${quoteIdent(index.table)} USING ${index.method} (${keys})`;
}

export function dropIndexSql(index: ListIndex): string {
  return `DROP INDEX IF EXISTS ${quoteIdent(index.name)}`;
}

/** Whether a `pg_indexes.indexdef` is `index` (whatever its name): same table, method and keys. */
export function isIndexDefinition(indexdef: string, index: ListIndex): boolean {
  const normal = (text: string) => text.replace(/"/g, '').replace(/\s+/g, ' ').toLowerCase();
  const match = /USING (\w+) \((.*)\)\s*$/i.exec(indexdef);
  if (!match || /\sWHERE\s/i.test(indexdef)) return false;
  return match[1].toLowerCase() === index.method && normal(match[2]) === normal(index.keys);
}

const UNSORTABLE_TYPES = new Set(['json', 'jsonb', 'simple-json', 'text']);

/**
 * The columns `?sort=` accepts: `sortable` when the model declares it (plus `created_at`, the default
 * sort), otherwise every serialised column but JSON and unbounded `text` ones (a B-tree entry must stay
 * under ~2.7 kB) and `company_uuid` (constant within a list).
 */
export function sortableColumns(
  metadata: EntityMetadata,
  model: ResourceModelMetadata,
  normalizeType: (column: ColumnMetadata) => string,
): string[] {
  const hidden = new Set(model.hidden ?? []);
  const names = new Set(metadata.columns.map((column) => column.databaseName));
  if (model.sortable) {
    return [...new Set([...(names.has('created_at') ? ['created_at'] : []), ...model.sortable])];
  }
  return metadata.columns
    .filter(
      (column) =>
        !['id', 'company_uuid'].includes(column.databaseName) &&
        !hidden.has(column.propertyName) &&
        !UNSORTABLE_TYPES.has(String(normalizeType(column)).toLowerCase()),
    )
    .map((column) => column.databaseName);
}

/** Whether the table of `metadata` is tenant-scoped (list indexes lead with company_uuid). */
export function isScoped(metadata: EntityMetadata): boolean {
  return metadata.columns.some((column) => column.databaseName === 'company_uuid');
}

/** The list indexes a resource model's declaration asks for (none for an unscoped table). */
export function declaredListIndexes(
  metadata: EntityMetadata,
  model: ResourceModelMetadata,
  normalizeType: (column: ColumnMetadata) => string,
): ListIndex[] {
  if (!isScoped(metadata)) return [];
  return listIndexes(
    metadata.tableName,
    sortableColumns(metadata, model, normalizeType),
    model.searchable ?? [],
  );
}
