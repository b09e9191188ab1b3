import { Logger } from '@nestjs/common';
import { listIndexes } from './list-indexes';
import { ResourceDefinition } from './resource-definition';
import type { Sql } from './sql-runner';

/** A gram this share of the index's rows holds or more is left out of a search's index query. */
export const FREQUENT_GRAM_SHARE = 0.5;
/** Statistics move only with ANALYZE (autovacuum's, or a migration's): read again this long after. */
const REFRESH_MS = 10 * 60_000;
/**
 * After a read that found nothing to use (no statistics yet: a new index, a table not analysed) or failed
 * (the database down), a search this much later reads again.
 */
const RETRY_MS = 10_000;

/**
 * The grams most rows of a resource's search index hold (PostgreSQL's statistics of the indexed
 * expression: its most common elements and their frequencies, kept by ANALYZE), which a search leaves out
 * of its index query (see `wharf_search_query(text, text[])`): every candidate of the rare grams would
 * otherwise also be looked up in their posting trees. Read once per resource and kept: reading
 * `pg_stats` on every search would cost about as much as the search it speeds up.
 */
export class FrequentGrams {
  private grams: string[] = [];
  private dueAt = 0;
  private reading?: Promise<void>;
  /** The first read, which searches wait for; later reads refresh in the background. */
  private firstRead?: Promise<void>;
  private readonly index?: string;
  /** Set after a failed read is logged, so an outage logs it once, not every RETRY_MS. */
  private failing = false;
  private readonly logger = new Logger('search');

  constructor(
    def: ResourceDefinition,
    private readonly sql: Sql,
  ) {
    this.index = listIndexes(def.table, [], def.searchable, def.searchKeys).find(
      (index) => index.method === 'gin',
    )?.name;
  }

  /** The grams as last read; the first call waits for the first read, later ones refresh in the background. */
  async get(): Promise<string[]> {
    if (this.index && performance.now() >= this.dueAt && !this.reading) {
      this.reading = this.read(this.index).finally(() => (this.reading = undefined));
      this.firstRead ??= this.reading;
    }
    await this.firstRead;
    return this.grams;
  }

  private async read(index: string): Promise<void> {
    this.dueAt = performance.now() + REFRESH_MS;
    try {
      // The frequencies array ends with more entries than the elements (minimum and maximum, and for a plain
      // array the null share), which unnest pairs with NULL grams.
      const [row] = await this.sql.rows(
        `SELECT array(SELECT u.gram FROM unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) AS u(gram, share)
                       WHERE u.gram IS NOT NULL AND u.share >= $2) AS grams
           FROM pg_stats s WHERE s.schemaname = current_schema() AND s.tablename = $1`,
        [index, FREQUENT_GRAM_SHARE],
      );
      this.grams = (row?.grams as string[] | undefined) ?? [];
      if (!row) this.dueAt = performance.now() + RETRY_MS;
      this.failing = false;
    } catch (error) {
      // Without them a search is only slower (it reads every gram); its own statement reports an outage.
      this.dueAt = performance.now() + RETRY_MS;
      if (!this.failing)
        this.logger.warn(
          `search statistics of ${index} unreadable (${(error as Error).message}): searches read every gram`,
        );
      this.failing = true;
    }
  }
}
