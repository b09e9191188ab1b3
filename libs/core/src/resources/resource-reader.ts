import { RequestContext } from '../tenancy/request-context';
import { FrequentGrams } from './frequent-grams';
import { JsonText } from '../common/json-text';
import { SortKey, encodeCursor } from './list-cursor';
import { EXACT_TOTAL_LIMIT, parseListQuery } from './list-query';
import type { ResourceDefinition, ResourceRow, RowVisibility, WriteTransaction } from './resource-definition';
import { notFound } from './resource-errors';
import { needsNormalising } from './record-sql';
import { serializeOne } from './resource-serializer';
import { scopedSql } from './resource-sql';
import type { Sql } from './sql-runner';
import { Params, ident } from './sql';

/** Reads of one resource: pages and single records from the pool, and locked rows inside a write. */
export class ResourceReader {
  private readonly frequentGrams: FrequentGrams;

  constructor(
    private readonly def: ResourceDefinition,
    /** The pool's reads (sqlOfReads): a read needs no transaction of its own, and may go to a replica. */
    private readonly sql: Sql,
    /** Which rows the caller may read, when the resource limits them (ResourceModelOptions.visibility). */
    private readonly visibility?: RowVisibility,
  ) {
    this.frequentGrams = new FrequentGrams(def, sql);
  }

  /** A page of records and its `meta`, as the JSON text of the response. */
  async list(query: Record<string, unknown>): Promise<JsonText> {
    const company = RequestContext.companyUuid();
    const params = new Params();
    const parsed = parseListQuery(query ?? {}, this.def, params);
    const visible = this.visible();
    if (visible) parsed.conditions.push(`t.${ident(visible.column)} = ANY(${params.add(visible.values)})`);
    const { limit, offset } = parsed;
    // One row past the page tells whether a next cursor exists; the count stops past EXACT_TOTAL_LIMIT.
    const page = await scopedSql.pageRecords(
      this.sql,
      this.def,
      company,
      { ...parsed, frequentGrams: parsed.search ? await this.frequentGrams.get() : [] },
      params,
      limit + 1,
    );
    const more = page.fetched > limit;
    const shown = Math.min(page.fetched, limit);
    const exact = page.total <= EXACT_TOTAL_LIMIT;
    // Past the limit the total is a lower bound that always admits the next page: a client paging by
    // `last_page` (Ember's) keeps going while there is more, and the last page's total is exact again.
    const seen = parsed.cursor ? 0 : offset + shown + (more ? 1 : 0);
    const total = exact ? page.total : Math.max(EXACT_TOTAL_LIMIT, seen);
    const meta = {
      total,
      total_exact: exact || (!parsed.cursor && !more && shown > 0),
      per_page: limit,
      current_page: parsed.cursor ? null : Math.floor(offset / limit) + 1,
      last_page: Math.max(1, Math.ceil(total / limit)),
      from: shown && !parsed.cursor ? offset + 1 : null,
      to: shown && !parsed.cursor ? offset + shown : null,
      next_cursor: more && page.last ? this.cursorAfter(parsed.sort, parsed.sortKeys, page.last) : null,
    };
    const records = needsNormalising(this.def) ? JSON.stringify(JSON.parse(page.records)) : page.records;
    return new JsonText(
      `{${JSON.stringify(this.def.keys.plural)}:`,
      records,
      `,"meta":${JSON.stringify(meta)}}`,
    );
  }

  /** The cursor after the record whose sort values and uuid `last` holds (see PageRecords.last). */
  private cursorAfter(sort: string, keys: SortKey[], last: string): string {
    const values = JSON.parse(last) as unknown[];
    const record: Record<string, unknown> = { uuid: values[keys.length] };
    keys.forEach((key, i) => (record[key.column.name] = values[i]));
    return encodeCursor(sort, keys, record);
  }

  /** One record as served, embeds included, as JSON text; 404 if the caller has none. */
  async find(uuid: string): Promise<string> {
    const company = RequestContext.companyUuid();
    const record = await scopedSql.findRecord(this.sql, this.def, company, uuid, this.visible());
    if (record === undefined) throw notFound(this.def, uuid);
    return needsNormalising(this.def) ? JSON.stringify(JSON.parse(record)) : record;
  }

  /** The column and the values of it the caller may read; undefined when it may read every row. */
  private visible(): { column: string; values: readonly string[] } | undefined {
    const values = this.visibility?.visibleValues();
    return values && { column: this.def.visibility!.column, values };
  }

  async lockIn(tx: WriteTransaction, uuid: string): Promise<ResourceRow> {
    const row = await scopedSql.findOne(tx.sql, this.def, tx.companyUuid, uuid, true);
    if (!row) throw notFound(this.def, uuid);
    return row;
  }

  async findIn(tx: WriteTransaction, uuid: string): Promise<Record<string, unknown> | undefined> {
    const row = await scopedSql.findOne(tx.sql, this.def, tx.companyUuid, uuid);
    return row ? serializeOne(tx.sql, this.def, tx.companyUuid, row) : undefined;
  }

  async findAllIn(tx: WriteTransaction, column: string, value: unknown): Promise<ResourceRow[]> {
    return scopedSql.whereIn(tx.sql, this.def, tx.companyUuid, column, [value], true);
  }
}
