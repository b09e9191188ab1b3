import { EXACT_TOTAL_LIMIT, type ListQuery, searchIndexed } from './list-query';
import { jsonValue, recordExpression } from './record-sql';
import type { ResourceDefinition } from './resource-definition';
import type { Sql } from './sql-runner';
import { Params, ident } from './sql';

/**
 * A page of records as served, embeds included, as the JSON text of an array, and the filtered total
 * counted up to `countLimit` rows (the count stops there): one statement (two for a search matching
 * `countLimit` rows or more). The page is cut first (a top-N read from the `(company_uuid, <sort column>,
 * id)` index) and only its rows are serialised. `limit` rows are read, the text holds all but the last
 * (`fetched` says whether it was there); `last` is the JSON array of the last record's sort values and uuid.
 */
export async function pageRecords(
  sql: Sql,
  def: ResourceDefinition,
  company: string,
  query: PageQuery & Pick<ListQuery, 'search'>,
  params: Params,
  limit: number,
  countLimit = EXACT_TOTAL_LIMIT + 1,
): Promise<PageRecords> {
  const parsed = params.values.length;
  const run = async (matchesFirst: boolean, knownTotal?: number) => {
    // Each statement binds the parsed conditions' values, then its own.
    const own = new Params();
    own.values.push(...params.values.slice(0, parsed));
    const text = pageStatement(def, company, query, own, limit, countLimit, matchesFirst, knownTotal);
    // Prepared: a list route sends the same few shapes over and over (statementName bounds how many).
    const [row] = await sql.rows(text, own.values, true);
    return {
      records: (row.records as string | null) ?? '[]',
      fetched: Number(row.fetched ?? 0),
      last: row.last as string | null,
      total: Number(row.total),
    };
  };
  // A search reads its matches once; only when they reach the count limit is the page cut by the sort
  // index, the count already known.
  if (!query.search) return run(false);
  const found = await run(true);
  return found.total < countLimit ? found : run(false, found.total);
}

/** What pageRecords reads. */
export interface PageRecords {
  /** The JSON text of the page's records (all rows read but the one past the page). */
  records: string;
  /** How many rows were read: one more than the page holds when the list goes on. */
  fetched: number;
  /** The JSON array of the last record's sort values, then its uuid (null for an empty page). */
  last: string | null;
  total: number;
}

/** What a page statement reads: the parsed list query, and the search index's grams to leave out. */
export type PageQuery = Pick<
  ListQuery,
  'conditions' | 'searches' | 'orderBy' | 'offset' | 'seek' | 'sortKeys'
> & {
  frequentGrams?: readonly string[];
};

/**
 * The statement of `scopedSql.pageRecords` (exported so tests can EXPLAIN it); adds its values to `params`.
 *
 * With `matchesFirst` (a search), the matching ids are collected once (one search index scan, at most
 * `countLimit` of them), counted, and the page is cut from them: exact only while fewer than `countLimit`
 * match, so the caller runs the plain statement when the count reaches it (no page is serialised then). The
 * plain statement leaves the index's conditions out: its ILIKE filters the sort index's first rows, where
 * they would only cost; and with `knownTotal` (what the search counted) it counts nothing: with the matches
 * spread thin (1 in 50 at a million rows) the count read half the table to find the 10,001st.
 */
export function pageStatement(
  def: ResourceDefinition,
  company: string,
  query: PageQuery,
  params: Params,
  limit: number,
  countLimit = EXACT_TOTAL_LIMIT + 1,
  matchesFirst = false,
  knownTotal?: number,
): string {
  const scoped = [`t."company_uuid" = ${params.add(company)}`, ...query.conditions];
  const conditions = scoped.join(' AND ');
  const table = ident(def.table);
  const shown = params.add(limit - 1);
  // The page and the row past it, numbered in order: the text holds the page, `last` the cursor's values.
  const keys = [...query.sortKeys.map((key) => key.column), { name: 'uuid', kind: 'uuid' as const }];
  const last = `'[' || ${keys.map((column) => jsonValue('t', column)).join(` || ',' || `)} || ']'`;
  const records = (from: string) =>
    `(SELECT '[' || string_agg(${recordExpression(def, 't')}, ',' ORDER BY t."__n") FILTER (WHERE t."__n" <= ${shown}) || ']' AS "records",
         count(*) AS "fetched", max(${last}) FILTER (WHERE t."__n" = ${shown}) AS "last"
       FROM (SELECT t.*, row_number() OVER (ORDER BY ${query.orderBy}) AS "__n"
             FROM (SELECT t.* FROM ${table} t WHERE ${from}
                   ORDER BY ${query.orderBy} LIMIT ${params.add(limit)} OFFSET ${params.add(query.offset)}) t) t)`;
  if (matchesFirst) {
    const cap = params.add(countLimit);
    const seek = query.seek ? ` AND ${query.seek}` : '';
    const indexed = query.searches.map((text) => searchIndexed(def, params, text, query.frequentGrams));
    const matching = [...scoped, ...indexed].join(' AND ');
    // At the cap the caller pages with the plain statement: sorting 10,001 matches here would be wasted.
    return `WITH m AS MATERIALIZED (SELECT t."id" FROM ${table} t WHERE ${matching} LIMIT ${cap})
       SELECT (SELECT count(*) FROM m) AS "total", p.*
       FROM ${records(`t."id" IN (SELECT m."id" FROM m)${seek}`)} p WHERE (SELECT count(*) FROM m) < ${cap}
       UNION ALL SELECT (SELECT count(*) FROM m), NULL, 0, NULL WHERE (SELECT count(*) FROM m) >= ${cap}`;
  }
  const page = query.seek ? `${conditions} AND ${query.seek}` : conditions;
  const total =
    knownTotal === undefined
      ? `(SELECT count(*) FROM (SELECT 1 FROM ${table} t WHERE ${conditions}
                   LIMIT ${params.add(countLimit)}) c)`
      : `${params.add(knownTotal)}::bigint`;
  return `SELECT ${total} AS "total", p.* FROM ${records(page)} p`;
}
