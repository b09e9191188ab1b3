import { ApiError } from '../common/api-error';
import { SortKey, afterCursor } from './list-cursor';
import { searchGramsSql } from './list-indexes';
import { filter, single } from './list-filters';
import type { ResourceDefinition } from './resource-definition';
import { Params, ident, likePattern } from './sql';

export const DEFAULT_LIMIT = 30;
export const MAX_LIMIT = 100;
/**
 * `meta.total` is an exact count up to this many matching records; past it the count stops reading
 * (`meta.total_exact: false`) so a page costs the same in a company of 10 thousand or 10 million records.
 */
export const EXACT_TOTAL_LIMIT = 10_000;
/** Far beyond any real list, and small enough that `(page - 1) * limit` stays an exact integer. */
export const MAX_PAGE = 1_000_000_000;

export interface ListQuery {
  conditions: string[];
  orderBy: string;
  limit: number;
  offset: number;
  /** The sort as given (default `-created_at`) and its keys: what a keyset cursor continues. */
  sort: string;
  sortKeys: SortKey[];
  /** Whether the page continues a cursor (meta then has no page numbers). */
  cursor: boolean;
  /** With a cursor: the condition that starts the page after it (not part of the total). */
  seek?: string;
  /**
   * The texts of `query` and `<searchable column>_like`, for the search index (see `searchIndexed`): each
   * has its ILIKE among `conditions`, so a statement asks the index only where it picks the rows.
   */
  searches: string[];
  /** Whether the list searches (has `searches`): its matches are read once, from the search index. */
  search: boolean;
}

const RESERVED = new Set(['limit', 'page', 'offset', 'sort', 'query', 'cursor']);

function wholeNumber(name: string, raw: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max) {
    throw ApiError.badParameter(
      name,
      `${name} must be a whole number from ${min}${max < Number.MAX_SAFE_INTEGER ? ` to ${max}` : ''}.`,
    );
  }
  return value;
}

function sortKeys(raw: string, def: ResourceDefinition): SortKey[] {
  const parts = raw.split(',').map((item) => item.trim());
  if (parts.some((part) => !part)) throw ApiError.badParameter('sort', 'sort has an empty item.');
  return parts.map((part) => {
    let name = part;
    let direction: SortKey['direction'] = 'ASC';
    if (name.startsWith('-')) [name, direction] = [name.slice(1), 'DESC'];
    const colon = /^(.*):(asc|desc)$/i.exec(name);
    if (colon) [name, direction] = [colon[1], colon[2].toUpperCase() as SortKey['direction']];
    const column = def.sortable.has(name) ? def.columns.get(name) : undefined;
    if (!column || column.kind === 'json') {
      throw ApiError.badParameter(
        'sort',
        `Cannot sort by "${name}": sort by ${[...def.sortable].join(', ')}.`,
      );
    }
    return { column, direction };
  });
}

/** Parses the Fleetbase-style list grammar into SQL fragments over allowlisted columns. */
export function parseListQuery(
  query: Record<string, unknown>,
  def: ResourceDefinition,
  params: Params,
): ListQuery {
  const conditions: string[] = [];
  const searches: string[] = [];
  for (const [name, value] of Object.entries(query)) {
    if (RESERVED.has(name)) continue;
    conditions.push(filter(name, single(name, value), def, params, searches));
  }
  if (query.query !== undefined) {
    const text = single('query', query.query);
    if (text !== '' && def.searchable.length) {
      const pattern = params.add(likePattern(text));
      conditions.push(
        `(${def.searchable.map((column) => `t.${ident(column)} ILIKE ${pattern} ESCAPE '\\'`).join(' OR ')})`,
      );
      searches.push(text);
    }
  }
  const limit =
    query.limit === undefined
      ? DEFAULT_LIMIT
      : wholeNumber('limit', single('limit', query.limit), 1, MAX_LIMIT);
  const page = query.page === undefined ? 1 : wholeNumber('page', single('page', query.page), 1, MAX_PAGE);
  const offset =
    query.offset === undefined
      ? (page - 1) * limit
      : wholeNumber('offset', single('offset', query.offset), 0);
  const sort = query.sort === undefined ? '-created_at' : single('sort', query.sort);
  const keys = sortKeys(sort, def);
  const last = keys[keys.length - 1].direction;
  const orderBy = [
    ...keys.map((key) => `t.${ident(key.column.name)} ${key.direction}`),
    `t."id" ${last}`,
  ].join(', ');
  const cursor = query.cursor !== undefined;
  if (cursor && (query.page !== undefined || query.offset !== undefined))
    throw ApiError.badParameter(
      'cursor',
      'cursor continues a list: it cannot be combined with page or offset.',
    );
  const seek = cursor ? afterCursor(single('cursor', query.cursor), sort, keys, def, params) : undefined;
  return {
    conditions,
    orderBy,
    limit,
    offset: cursor ? 0 : offset,
    sort,
    sortKeys: keys,
    cursor,
    seek,
    searches,
    search: searches.length > 0,
  };
}

/**
 * The search index's candidates for `text` (see SEARCH_GRAM): rows whose grams hold those
 * `wharf_search_query` takes from the text. A superset of the rows an ILIKE of the text over searchable
 * columns keeps (a lowered value containing the lowered text holds its grams), never the test itself: the
 * ILIKE keeps the exact meaning, `%`, `_` and `'` literal.
 *
 * Only the index should answer it: outside the index it recomputes every row's grams, for every row a count
 * reads. The tsquery is a sub-select so the planner cannot estimate it: seeing
 * "wareh" in every row, it chose a scan filtering by the grams over the bitmap (which skips them); with the
 * default estimate the bitmap wins at every size.
 */
export function searchIndexed(
  def: ResourceDefinition,
  params: Params,
  text: string,
  frequentGrams: readonly string[] = [],
): string {
  // The grams most rows hold are left out (see FrequentGrams), unless the text has no others.
  const query = `(SELECT wharf_search_query(${params.add(text)}, ${params.add(frequentGrams)}::text[]))`;
  if (!def.searchKeys) return `${searchGramsSql(def.searchable, 't')} @@ ${query}`;
  // The rows of the keys whose values hold the grams: a superset still, as every row's values are its key's.
  const by = def.searchKeys.by.map(ident);
  return `(${by.map((column) => `t.${column}`).join(', ')}) IN (SELECT ${by.map((column) => `k.${column}`).join(', ')}
    FROM ${ident(def.searchKeys.table)} k WHERE k."company_uuid" = t."company_uuid" AND ${searchGramsSql(def.searchable, 'k')} @@ ${query})`;
}
