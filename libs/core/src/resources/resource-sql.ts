import { pageRecords } from './page-sql';
import { recordExpression } from './record-sql';
import type { ResourceDefinition } from './resource-definition';
import type { Sql } from './sql-runner';
import { Params, UUID, bind, ident, literal } from './sql';

const findRecordStatements = new WeakMap<ResourceDefinition, Map<string, string>>();

/**
 * A record's statement, with the visibility condition on `column` when given: built once per resource and
 * column, the same string object every time, so naming the prepared statement hashes it once.
 */
function findRecordStatement(def: ResourceDefinition, column?: string): string {
  let built = findRecordStatements.get(def);
  if (!built) findRecordStatements.set(def, (built = new Map()));
  let text = built.get(column ?? '');
  if (text === undefined) {
    text = `SELECT ${recordExpression(def, 't')} AS "record" FROM ${ident(def.table)} t
       WHERE t."uuid" = $1 AND t."company_uuid" = $2${column ? ` AND t.${ident(column)} = ANY($3)` : ''}`;
    built.set(column ?? '', text);
  }
  return text;
}

/**
 * The only statements the resource layer runs. Every one is filtered by (or sets) `company_uuid`:
 * tenant scoping lives here (the list page's statement in page-sql.ts) and nowhere else.
 */
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
  async findRecord(
    sql: Sql,
    def: ResourceDefinition,
    company: string,
    uuid: string,
    visible?: { column: string; values: readonly string[] },
  ) {
    if (!UUID.test(uuid)) return undefined;
    const text = findRecordStatement(def, visible?.column);
    const [row] = await sql.rows(text, visible ? [uuid, company, visible.values] : [uuid, company], true);
    return row?.record as string | undefined;
  },

  pageRecords,
};
