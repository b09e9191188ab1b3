import { performance } from 'node:perf_hooks';
import { listIndexes } from './list-indexes';
import { ResourceDefinition } from './resource-definition';
import type { Sql } from './resource-sql';

/** A gram this share of the index's rows holds or more is left out of a search's index query. */
export const FREQUENT_GRAM_SHARE = 0.5;
/** Statistics move only with ANALYZE (autovacuum's, or a migration's): read again this long after. */
const REFRESH_MS = 10 * 60_000;
/** After a failed read (the database down, or the index not built yet), the next search tries again. */
const RETRY_MS = 10_000;

/**
 * The grams most rows of a resource's search index hold (PostgreSQL's statistics of the indexed
 * expression: its most common elements and their frequencies, kept by ANALYZE), which a search leaves out
 * of its index query (see `wharf_search_query(text, text[])`): every candidate of the rare grams would
 * otherwise also be looked up in their posting trees. Read once per resource and kept: reading
 * `pg_stats` costs about as much as the search it would speed up (0.7 ms, and 1.5 ms to plan).
 */
export class FrequentGrams {
  private grams: string[] = [];
  private dueAt = 0;
  private reading?: Promise<void>;
  /** Whether a read has ended (or there is nothing to read): until then a search waits for the first. */
  private settled: boolean;
  private readonly index?: string;

  constructor(
    def: ResourceDefinition,
    private readonly sql: Sql,
  ) {
    this.index = listIndexes(def.table, [], def.searchable, def.searchKeys).find(
      (index) => index.method === 'gin',
    )?.name;
    this.settled = !this.index;
  }

  /** The grams as last read; the first call waits for the first read, later ones refresh in the background. */
  async get(): Promise<string[]> {
    if (this.index && performance.now() >= this.dueAt && !this.reading)
      this.reading = this.read(this.index).finally(() => {
        this.reading = undefined;
        this.settled = true;
      });
    if (!this.settled) await this.reading;
    return this.grams;
  }

  private async read(index: string): Promise<void> {
    this.dueAt = performance.now() + REFRESH_MS;
    try {
      // The frequencies array has three more entries than the elements (minimum, maximum, null share).
      const [row] = await this.sql.rows(
        `SELECT array(SELECT u.gram FROM unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) AS u(gram, share)
                       WHERE u.gram IS NOT NULL AND u.share >= $2) AS grams
           FROM pg_stats s WHERE s.schemaname = current_schema() AND s.tablename = $1`,
        [index, FREQUENT_GRAM_SHARE],
      );
      this.grams = (row?.grams as string[] | undefined) ?? [];
    } catch {
      // Without them a search is only slower; the statement itself reports an outage.
      this.dueAt = performance.now() + RETRY_MS;
    }
  }
}
