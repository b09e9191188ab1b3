import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { ApiError, RequestContext, type WriteTransaction } from '@wharf/core';
import { WRITE_ATTEMPTS, runWriteTransaction } from '@wharf/core/resources/resource-transaction';
import { createCompany } from './support/accounts';
import { http } from './support/http';
import { startApi, TestApi } from './support/test-app';

const W = '/inventory/int/v1/warehouses';

/**
 * A write transaction PostgreSQL picks as a deadlock's victim (a worker, or another client, writing the same
 * rows in the other order) runs again instead of answering 500.
 */
describe('write transactions that lose a race', () => {
  let api: TestApi;
  let other: Client;

  beforeAll(async () => {
    api = await startApi();
    other = new Client({ connectionString: api.config.databaseUrl });
    await other.connect();
  });
  afterAll(async () => {
    await other.end();
    await api.close();
  });

  /** The backends of the api's database waiting for a lock, other than `other`'s. */
  async function apiWaiting(): Promise<boolean> {
    const { rows } = await other.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
    );
    return rows[0].n > 0;
  }

  it('runs a deadlock’s victim again, and answers as if there had been no race', async () => {
    const acme = await createCompany(api, 'Acme');
    const created = await http(api.url, 'POST', W, {
      key: acme.key,
      body: {
        warehouse: {
          name: 'Race',
          address: '1 Quay',
          city: 'Rotterdam',
          state: 'ZH',
          zip: '3011',
          capacity: 1,
          sections: [{ name: 'A' }],
        },
      },
    });
    expect(created.status).toBe(201);
    const warehouse = created.body.warehouse.uuid as string;
    const section = created.body.warehouse.sections[0].uuid as string;

    // The other side holds the section the delete cascades to; its own deadlock check waits longest, so
    // PostgreSQL's choice of victim is the api's transaction.
    await other.query('BEGIN');
    await other.query(`SET LOCAL deadlock_timeout = '60s'`);
    await other.query('SELECT 1 FROM warehouse_sections WHERE uuid = $1 FOR UPDATE', [section]);
    const deleted = http(api.url, 'DELETE', `${W}/${warehouse}`, { key: acme.key });
    while (!(await apiWaiting())) await new Promise((resolve) => setTimeout(resolve, 10));
    // Now the other side waits for the warehouse the api's delete holds: a deadlock. This returns only once
    // the api's transaction is gone, rolled back as the victim (its delete has not committed: the row is
    // there to lock).
    const locked = await other.query('SELECT uuid FROM warehouses WHERE uuid = $1 FOR UPDATE', [warehouse]);
    expect(locked.rows).toEqual([{ uuid: warehouse }]);
    await other.query('COMMIT');

    const answer = await deleted;
    expect({ status: answer.status, uuid: answer.body?.warehouse?.uuid }).toEqual({
      status: 200,
      uuid: warehouse,
    });
    expect((await http(api.url, 'GET', `${W}/${warehouse}`, { key: acme.key })).status).toBe(404);
    const { rows } = await other.query('SELECT count(*)::int AS n FROM warehouse_sections WHERE uuid = $1', [
      section,
    ]);
    expect(rows[0].n).toBe(0);
  }, 30_000);

  /** PostgreSQL itself refusing the transaction with `sqlstate`, as it does a deadlock's victim. */
  const refused = (tx: WriteTransaction, sqlstate: string) =>
    tx.sql.rows(`DO $$ BEGIN RAISE EXCEPTION 'refused' USING ERRCODE = '${sqlstate}'; END $$`, []);

  it('runs again after each lost race, answers 503 with Retry-After once every run lost, and never retries another error', async () => {
    const db = api.app.get(DataSource);
    const { uuid } = await createCompany(api, 'Beta');
    const write = <T>(work: (tx: WriteTransaction) => Promise<T>) =>
      RequestContext.run({ companyUuid: uuid }, () => runWriteTransaction(db, [], undefined, work)).catch(
        (error: unknown) => error,
      );

    let runs = 0;
    const answer = await write(async (tx) => {
      if (++runs === 1) await refused(tx, '40001');
      return (await tx.sql.rows('SELECT 42 AS n', []))[0].n as number;
    });
    expect({ runs, answer }).toEqual({ runs: 2, answer: 42 });

    runs = 0;
    const exhausted = (await write(async (tx) => {
      runs++;
      await refused(tx, '40P01');
    })) as ApiError;
    expect(runs).toBe(WRITE_ATTEMPTS);
    expect(exhausted).toBeInstanceOf(ApiError);
    expect({
      status: exhausted.getStatus(),
      headers: exhausted.headers,
      code: exhausted.errors[0].code,
    }).toEqual({
      status: 503,
      headers: { 'retry-after': '1' },
      code: 'write_conflict',
    });

    runs = 0;
    const passed = (await write(async (tx) => {
      runs++;
      await refused(tx, '22012');
    })) as { code?: string };
    expect({ runs, code: passed.code }).toEqual({ runs: 1, code: '22012' });
  });
});
