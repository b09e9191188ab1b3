import { createIndexSql, isIndexDefinition, listIndexes } from './list-indexes';

describe('list indexes', () => {
  it('one search index per table over all its searchable columns, named after them', () => {
    const [, search] = listIndexes('vehicles', ['make'], ['plate_number', 'make']);
    expect(search).toMatchObject({
      kind: 'search',
      name: 'vehicles_plate_number_make_search_idx',
      columns: ['plate_number', 'make'],
      method: 'gin',
    });
    expect(createIndexSql(search)).toBe(
      'CREATE INDEX IF NOT EXISTS "vehicles_plate_number_make_search_idx" ON "vehicles" USING gin (wharf_search_grams("plate_number", "make"))',
    );
    expect(listIndexes('vehicles', ['make'], [])).toHaveLength(1);
  });

  it('with search keys: the search index on the keys table, a B-tree on the `by` columns of the rows', () => {
    const keys = { table: 'logs_search_keys', by: ['endpoint_uuid', 'event'] };
    const [, search, rows] = listIndexes('logs', ['sent_at'], ['event', 'url'], keys);
    expect(createIndexSql(search)).toBe(
      'CREATE INDEX IF NOT EXISTS "logs_search_keys_event_url_search_idx" ON "logs_search_keys" USING gin (wharf_search_grams("event", "url"))',
    );
    expect(createIndexSql(rows)).toBe(
      'CREATE INDEX IF NOT EXISTS "logs_endpoint_uuid_event_search_keys_idx" ON "logs" USING btree ("endpoint_uuid", "event")',
    );
    expect(listIndexes('logs', ['sent_at'], [], keys)).toHaveLength(1);
  });

  it('recognises the search index as pg_indexes writes it (varchar cast, text as is), and no other', () => {
    const [search] = listIndexes('orders', [], ['reference', 'notes']);
    const def = (keys: string) => `CREATE INDEX x ON public.orders USING gin (${keys})`;
    expect(
      isIndexDefinition(def('wharf_search_grams(VARIADIC ARRAY[(reference)::text, notes])'), search),
    ).toBe(true);
    expect(isIndexDefinition(def('wharf_search_grams(VARIADIC ARRAY[(reference)::text])'), search)).toBe(
      false,
    );
    expect(isIndexDefinition(def('reference gin_trgm_ops'), search)).toBe(false);
  });
});
