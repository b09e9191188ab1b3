import { Logger } from '@nestjs/common';
import { FrequentGrams, ResourceRegistry, Sql, poolOf, sqlOfPool } from '@wharf/core';
import { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { createCompany } from './support/accounts';
import { startApi, TestApi } from './support/test-app';

/** FrequentGrams reads again this long after a read that found nothing or failed. */
const RETRY_MS = 10_000;

/**
 * When a search reads its index statistics again: only the clock (`performance.now`) is faked, so the
 * statements are PostgreSQL's own, against a database without statistics yet and one that is down.
 */
describe('frequent grams: reading the search statistics again', () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(async () => {
    await api?.close();
  });
  beforeEach(() => {
    jest.useFakeTimers({
      doNotFake: [
        'setTimeout',
        'setInterval',
        'setImmediate',
        'clearTimeout',
        'clearInterval',
        'clearImmediate',
        'nextTick',
        'queueMicrotask',
        'hrtime',
        'Date',
      ],
    });
  });
  afterEach(() => {
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  /** A FrequentGrams of warehouses over `sql`, and the reads it has started (each one statement). */
  function gramsOver(sql: Sql) {
    const reads = jest.spyOn(sql, 'rows');
    const grams = new FrequentGrams(api.app.get(ResourceRegistry).get('warehouse'), sql);
    /** Waits for every read started so far (after the first, a read runs in the background). */
    const settled = () => Promise.allSettled(reads.mock.results.map((result) => result.value));
    return { grams, reads, settled };
  }

  it('reads again RETRY_MS after finding no statistics, and uses them once ANALYZE has made them', async () => {
    const dataSource = api.app.get(DataSource);
    const { grams, reads, settled } = gramsOver(sqlOfPool(poolOf(dataSource)));
    // A new table: no ANALYZE yet, so no statistics.
    await dataSource.query('DELETE FROM pg_statistic WHERE starelid = $1::regclass', [
      'warehouses_name_search_idx',
    ]);
    expect(await grams.get()).toEqual([]);
    expect(reads).toHaveBeenCalledTimes(1);

    const company = await createCompany(api, 'Grams');
    await dataSource.query(
      `INSERT INTO warehouses (company_uuid, name, address, city, state, zip, capacity)
       SELECT $1, 'Warehouse ' || i, 'a', 'c', 's', 'z', i FROM generate_series(1, 300) i`,
      [company.uuid],
    );
    await dataSource.query('ANALYZE warehouses');
    // Before the retry is due, searches keep what they have and nothing is read.
    jest.advanceTimersByTime(RETRY_MS - 1_000);
    expect(await grams.get()).toEqual([]);
    expect(reads).toHaveBeenCalledTimes(1);

    jest.advanceTimersByTime(1_000);
    await grams.get();
    expect(reads).toHaveBeenCalledTimes(2);
    await settled();
    expect(await grams.get()).toEqual(expect.arrayContaining(['wareh', 'areho', 'ouse ']));
    // Found: the next read is the ten-minute refresh, not the retry.
    jest.advanceTimersByTime(RETRY_MS * 2);
    await grams.get();
    expect(reads).toHaveBeenCalledTimes(2);
  });

  it('while the database is down: no grams, a read every RETRY_MS, and one warning for the outage', async () => {
    // Nothing listens on port 1: each read fails to connect, as in an outage.
    const pool = new Pool({
      connectionString: 'postgres://postgres@127.0.0.1:1/none',
      connectionTimeoutMillis: 2_000,
    });
    pool.on('error', () => undefined);
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      const { grams, reads, settled } = gramsOver(sqlOfPool(pool));
      expect(await grams.get()).toEqual([]);
      expect(reads).toHaveBeenCalledTimes(1);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0][0])).toMatch(/warehouses_name_search_idx unreadable/);

      await grams.get();
      expect(reads).toHaveBeenCalledTimes(1);
      for (const read of [2, 3]) {
        jest.advanceTimersByTime(RETRY_MS);
        expect(await grams.get()).toEqual([]);
        await settled();
        expect(reads).toHaveBeenCalledTimes(read);
      }
      expect(warn).toHaveBeenCalledTimes(1);
    } finally {
      await pool.end();
    }
  });
});
