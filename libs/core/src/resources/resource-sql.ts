import { Pool } from 'pg';
import { QueryRunner } from 'typeorm';
import { prepared as preparedStatement } from '../database/pool';
import { queryUnpinned } from '../database/pinned-connection';
import { clientOf } from '../database/typeorm-pg';
import { EXACT_TOTAL_LIMIT, type ListQuery, searchIndexed } from './list-query';
import { jsonValue, recordExpression } from './record-sql';
import { ResourceDefinition } from './resource-definition';
import { Params, UUID, bind, ident, literal } from './sql';

/** Anything that can run a statement and give back rows. */
export interface Sql {
  /** `prepared`: the statement has a fixed shape, worth preparing once per connection where supported. */
  rows(sql: string, params: unknown[], prepared?: boolean): Promise<Record<string, any>[]>;
}

/**
 * Reads straight from the pool pg already keeps for TypeORM: no QueryRunner per statement, and fixed-shape
 * statements (find by uuid, embedded relations) prepared once per connection.
 */
function statement(sql: string, params: unknown[], prepared?: boolean) {
  return prepared ? preparedStatement(sql, params) : { text: sql, values: params };
}

export const sqlOfPool = (pool: Pool): Sql => ({
  rows: async (sql, params, prepared) => (await pool.query(statement(sql, params, prepared))).rows,
});

/** sqlOfPool on a connection of the pool's own even while the request has one pinned (pinned-connection.ts). */
export const sqlOfUnpinnedPool = (pool: Pool): Sql => ({
  rows: async (sql, params, prepared) => (await queryUnpinned(pool, statement(sql, params, prepared))).rows,
});

/**
 * Statements inside a write's transaction, sent on the QueryRunner's own pg connection (the one holding
 * the transaction), without TypeORM's per-statement wrapping.
 */
export const sqlOf = (queryRunner: QueryRunner): Sql => ({
  rows: async (sql, params, prepared) => {
    const client = clientOf(queryRunner);
    if (!client) return (await queryRunner.query(sql, params, true)).records as Record<string, any>[];
    return (await client.query(statement(sql, params, prepared))).rows;
  },
});

export { UUID } from './sql';

/**
 * The only statements the resource layer runs. Every one is filtered by (or sets) `company_uuid`:
 * tenant scoping lives here and nowhere else.
 */
const findRecordStatements = new WeakMap<ResourceDefinition, string>();

export const scopedSql = {
  async findOne(sql: Sql, def: ResourceDefinition, company: string, uuid: string, lock = false) {
    if (!UUID.test(uuid)) return undefined;
    const [row] = await sql.rows(
      `SELECT * FROM ${ident(def.table)} WHERE "uuid" = $1 AND "company_uuid" = $2${lock ? ' FOR UPDATE' : ''}`,
      [uuid, company],
      true,
    );
    return row;
  },

  async exists(sql: Sql, table: string, company: string | null, uuid: string): Promise<boolean> {
    if (!UUID.test(uuid)) return false;
    const scoped = company !== null;
    const rows = await sql.rows(
      `SELECT 1 FROM ${ident(table)} WHERE "uuid" = $1${scoped ? ' AND "company_uuid" = $2' : ''}`,
      scoped ? [uuid, company] : [uuid],
    );
    return rows.length > 0;
  },

  /** Which of `uuids` exist in `table` (in `company`'s rows when it is scoped): one statement for all. */
  async existing(sql: Sql, table: string, company: string | null, uuids: string[]): Promise<Set<string>> {
    const valid = uuids.filter((uuid) => UUID.test(uuid));
    if (!valid.length) return new Set();
    const scoped = company !== null;
    const rows = await sql.rows(
      `SELECT "uuid" FROM ${ident(table)} WHERE "uuid" = ANY($1::uuid[])${scoped ? ' AND "company_uuid" = $2' : ''}`,
      scoped ? [valid, company] : [valid],
    );
    return new Set(rows.map((row) => String(row.uuid)));
  },

  async whereIn(
    sql: Sql,
    def: ResourceDefinition,
    company: string,
    column: string,
    values: unknown[],
    lock = false,
  ) {
    return sql.rows(
      `SELECT * FROM ${ident(def.table)} WHERE ${ident(column)} = ANY($1) AND "company_uuid" = $2 ORDER BY "created_at", "id"${lock ? ' FOR UPDATE' : ''}`,
      [values, company],
      true,
    );
  },

  async insert(sql: Sql, def: ResourceDefinition, company: string, values: Record<string, unknown>) {
    const params = new Params();
    const columns = Object.keys(values);
    const placeholders = columns.map((column) => bind(def, params, column, values[column]));
    const [row] = await sql.rows(
      `INSERT INTO ${ident(def.table)} (${[...columns, 'company_uuid'].map(ident).join(', ')})
       VALUES (${[...placeholders, params.add(company)].join(', ')}) RETURNING *`,
      params.values,
    );
    return row;
  },

  /**
   * Inserts many records with one statement (a column a record leaves out gets its DEFAULT) and returns
   * their rows in the order given.
   */
  async insertMany(sql: Sql, def: ResourceDefinition, company: string, list: Record<string, unknown>[]) {
    if (!list.length) return [];
    const params = new Params();
    const columns = [...new Set(list.flatMap((values) => Object.keys(values)))];
    const companyParam = params.add(company);
    const tuples = list.map(
      (values) =>
        `(${[
          ...columns.map((column) =>
            Object.hasOwn(values, column) ? bind(def, params, column, values[column]) : 'DEFAULT',
          ),
          companyParam,
        ].join(', ')})`,
    );
    const rows = await sql.rows(
      `INSERT INTO ${ident(def.table)} (${[...columns, 'company_uuid'].map(ident).join(', ')})
       VALUES ${tuples.join(', ')} RETURNING *`,
      params.values,
    );
    // Serial ids follow the VALUES order.
    return rows.sort((a, b) => Number(a.id) - Number(b.id));
  },

  /**
   * Updates many records with one statement, each with its own columns: `changes` holds, per uuid, the
   * columns to set; the values travel as one JSON array read back with the table's own row type.
   */
  async updateMany(
    sql: Sql,
    def: ResourceDefinition,
    company: string,
    changes: { uuid: string; values: Record<string, unknown> }[],
  ) {
    if (!changes.length) return [];
    const columns = [...new Set(changes.flatMap((change) => Object.keys(change.values)))];
    const table = ident(def.table);
    const sets = columns.map(
      (column) =>
        `${ident(column)} = CASE WHEN v."__set" ? ${literal(column)} THEN v.${ident(column)} ELSE t.${ident(column)} END`,
    );
    return sql.rows(
      `UPDATE ${table} t SET ${[...sets, '"updated_at" = now()'].join(', ')}
       FROM (SELECT e.j AS "__set", r.* FROM jsonb_array_elements($1::jsonb) AS e(j),
             jsonb_populate_record(NULL::${table}, e.j) AS r) v
       WHERE t."uuid" = v."uuid" AND t."company_uuid" = $2 RETURNING t.*`,
      [JSON.stringify(changes.map((change) => ({ ...change.values, uuid: change.uuid }))), company],
    );
  },

  async deleteMany(sql: Sql, def: ResourceDefinition, company: string, uuids: string[]) {
    await sql.rows(`DELETE FROM ${ident(def.table)} WHERE "uuid" = ANY($1::uuid[]) AND "company_uuid" = $2`, [
      uuids,
      company,
    ]);
  },

  async update(
    sql: Sql,
    def: ResourceDefinition,
    company: string,
    uuid: string,
    values: Record<string, unknown>,
  ) {
    const params = new Params();
    const sets = Object.keys(values).map(
      (column) => `${ident(column)} = ${bind(def, params, column, values[column])}`,
    );
    const [row] = await sql.rows(
      `UPDATE ${ident(def.table)} SET ${[...sets, '"updated_at" = now()'].join(', ')}
       WHERE "uuid" = ${params.add(uuid)} AND "company_uuid" = ${params.add(company)} RETURNING *`,
      params.values,
    );
    return row;
  },

  async delete(sql: Sql, def: ResourceDefinition, company: string, uuid: string) {
    await sql.rows(`DELETE FROM ${ident(def.table)} WHERE "uuid" = $1 AND "company_uuid" = $2`, [
      uuid,
      company,
    ]);
  },

  /** One record as served, embeds included, as JSON text: one prepared statement. */
  async findRecord(sql: Sql, def: ResourceDefinition, company: string, uuid: string) {
    if (!UUID.test(uuid)) return undefined;
    let text = findRecordStatements.get(def);
    if (!text) {
      text = `SELECT ${recordExpression(def, 't')} AS "record" FROM ${ident(def.table)} t
       WHERE t."uuid" = $1 AND t."company_uuid" = $2`;
      // The same string object every time, so naming the prepared statement hashes it once.
      findRecordStatements.set(def, text);
    }
    const [row] = await sql.rows(text, [uuid, company], true);
    return row?.record as string | undefined;
  },

  /**
   * A page of records as served, embeds included, as the JSON text of an array, and the filtered total
   * counted up to `countLimit` rows (the count stops there): one statement (two for a search matching
   * `countLimit` rows or more). The page is cut first (a top-N read from the `(company_uuid, <sort column>,
   * id)` index) and only its rows are serialised. `limit` rows are read, the text holds all but the last
   * (`fetched` says whether it was there); `last` is the JSON array of the last record's sort values and uuid.
   */
  async pageRecords(
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
  },
};

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
