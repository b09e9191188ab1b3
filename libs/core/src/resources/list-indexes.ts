import { createHash } from 'node:crypto';
import { EntityMetadata } from 'typeorm';
import { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';
import { ResourceModelMetadata } from './resource-model.decorator';

/**
 * The indexes that keep a resource's list pages flat as a company grows, derived from its declaration:
 * - `sort`: one B-tree `(company_uuid, <column>, id)` per sortable column, so `?sort=<column>` (either
 *   direction, `id` breaking ties as the list does) and the default `-created_at` read the first page
 *   straight from the index: no Sort node, no read of the company's other rows;
 * - `search`: one GIN over `wharf_search_grams(<searchable columns>)` per table (see SEARCH_GRAM), so
 *   `?query=`, a case-insensitive substring (`ILIKE '%…%'`), is one bitmap of candidates however many
 *   columns it searches, rechecked by the ILIKE.
 */
export interface ListIndex {
  table: string;
  /** The column a problem names: the sorted one, or the first searchable one. */
  column: string;
  /** Every column the index reads (the searchable ones of a search index). */
  columns: string[];
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

/**
 * The length of the grams `wharf_search_grams` (core's migration SearchGrams1700000000003) indexes: every
 * substring of this many characters starting at each position of the lowered value (shorter at its end).
 * A trigram index walks, for every candidate of its rarest trigram, the posting lists of the common ones
 * ("war", "are", … in every "Warehouse N"), so a search reads more pages the larger the table, whatever
 * it matches. Five characters make the rarest gram of a query rare enough (at most one row in 100,000
 * for digits) that its candidates stay few as the table grows, at about twice the trigram index's size.
 */
export const SEARCH_GRAM = 5;

/**
 * The list indexes of a table whose sortable and searchable columns are given; with `searchKeys`, the
 * search index is on its table and the rows get a B-tree on its `by` columns instead.
 */
export function listIndexes(
  table: string,
  sortable: string[],
  searchable: string[],
  searchKeys?: { table: string; by: string[] },
): ListIndex[] {
  const searchTable = searchKeys?.table ?? table;
  return [
    ...sortable.map((column): ListIndex => ({
      table,
      column,
      columns: [column],
      kind: 'sort',
      name: indexName(table, column, 'sort_idx'),
      method: 'btree',
      keys: `company_uuid, ${column}, id`,
    })),
    ...(searchable.length
      ? [
          {
            table: searchTable,
            column: searchable[0],
            columns: searchable,
            kind: 'search',
            // Named after its columns: declaring another searchable column asks for a new index.
            name: indexName(searchTable, searchable.join('_'), 'search_idx'),
            method: 'gin',
            keys: `wharf_search_grams(${searchable.join(', ')})`,
          } satisfies ListIndex,
        ]
      : []),
    ...(searchable.length && searchKeys
      ? [
          {
            table,
            column: searchKeys.by[0],
            columns: searchKeys.by,
            kind: 'search',
            name: indexName(table, searchKeys.by.join('_'), 'search_keys_idx'),
            method: 'btree',
            keys: searchKeys.by.join(', '),
          } satisfies ListIndex,
        ]
      : []),
  ];
}

/**
 * The indexed expression over `columns` (`alias.` before each when given): the query must spell it the
 * same way for PostgreSQL to match it with the index.
 */
export function searchGramsSql(columns: string[], alias?: string): string {
  const prefix = alias ? `${alias}.` : '';
  return `wharf_search_grams(${columns.map((column) => `${prefix}${quoteIdent(column)}`).join(', ')})`;
}

/** The statement creating `index`. */
export function createIndexSql(index: ListIndex): string {
  const keys =
    index.kind === 'sort'
      ? `"company_uuid", ${quoteIdent(index.column)}, "id"`
      : index.method === 'gin'
        ? searchGramsSql(index.columns)
        : index.columns.map(quoteIdent).join(', ');
  return `CREATE INDEX IF NOT EXISTS ${quoteIdent(index.name)} ON ${quoteIdent(index.table)} USING ${index.method} (${keys})`;
}

export function dropIndexSql(index: ListIndex): string {
  return `DROP INDEX IF EXISTS ${quoteIdent(index.name)}`;
}

/** Whether a `pg_indexes.indexdef` is `index` (whatever its name): same table, method and keys. */
export function isIndexDefinition(indexdef: string, index: ListIndex): boolean {
  // PostgreSQL writes a variadic call as `f(VARIADIC ARRAY[(name)::text, notes])`.
  const normal = (text: string) =>
    text
      .replace(/"/g, '')
      .replace(/\s+/g, ' ')
      .replace(/VARIADIC ARRAY\[(.*)\]/i, '$1')
      .replace(/\((\w+)\)::text/g, '$1')
      .replace(/::text/g, '')
      .toLowerCase();
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
    model.searchKeys,
  );
}
