import { RequestContext } from '../tenancy/request-context';
import { FrequentGrams } from './frequent-grams';
import { encodeCursor } from './list-cursor';
import { EXACT_TOTAL_LIMIT, parseListQuery } from './list-query';
import { ResourceDefinition } from './resource-definition';
import { notFound } from './resource-errors';
import type { ResourceRow } from './resource-hooks';
import { serializeOne } from './resource-serializer';
import { Sql, scopedSql } from './resource-sql';
import { Params } from './sql';
import type { WriteTransaction } from './write-transaction';

/** Reads of one resource: pages and single records from the pool, and locked rows inside a write. */
export class ResourceReader {
  private readonly frequentGrams: FrequentGrams;

  constructor(
    private readonly def: ResourceDefinition,
    /** The pool itself: a read needs no transaction of its own. */
    private readonly sql: Sql,
  ) {
    this.frequentGrams = new FrequentGrams(def, sql);
  }

  async list(query: Record<string, unknown>) {
    const company = RequestContext.companyUuid();
    const params = new Params();
    const parsed = parseListQuery(query ?? {}, this.def, params);
    const { limit, offset } = parsed;
    // One row past the page tells whether a next cursor exists; the count stops past EXACT_TOTAL_LIMIT.
    const { records, total: counted } = await scopedSql.pageRecords(
      this.sql,
      this.def,
      company,
      { ...parsed, frequentGrams: parsed.search ? await this.frequentGrams.get() : [] },
      params,
      limit + 1,
    );
    const more = records.length > limit;
    if (more) records.pop();
    const last = records[records.length - 1];
    const exact = counted <= EXACT_TOTAL_LIMIT;
    // Past the limit the total is a lower bound that always admits the next page: a client paging by
    // `last_page` (Ember's) keeps going while there is more, and the last page's total is exact again.
    const seen = parsed.cursor ? 0 : offset + records.length + (more ? 1 : 0);
    const total = exact ? counted : Math.max(EXACT_TOTAL_LIMIT, seen);
    return {
      [this.def.keys.plural]: records,
      meta: {
        total,
        total_exact: exact || (!parsed.cursor && !more && records.length > 0),
        per_page: limit,
        current_page: parsed.cursor ? null : Math.floor(offset / limit) + 1,
        last_page: Math.max(1, Math.ceil(total / limit)),
        from: records.length && !parsed.cursor ? offset + 1 : null,
        to: records.length && !parsed.cursor ? offset + records.length : null,
        next_cursor: more ? encodeCursor(parsed.sort, parsed.sortKeys, last) : null,
      },
    };
  }

  async find(uuid: string): Promise<Record<string, unknown>> {
    const record = await scopedSql.findRecord(this.sql, this.def, RequestContext.companyUuid(), uuid);
    if (!record) throw notFound(this.def, uuid);
    return record;
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
