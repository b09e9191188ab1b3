import {
  clientOf,
  dataSourceOptions,
  dropDatabase,
  ensureDatabase,
  poolOf,
  withPoolClient,
} from '@wharf/core';
import { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { testConfig } from './support/test-app';

/** Pins the TypeORM internals typeorm-pg.ts relies on: an upgrade that moves them fails here. */
describe('typeorm-pg: pg pool and transaction connection behind TypeORM', () => {
  const config = testConfig();
  let dataSource: DataSource;

  beforeAll(async () => {
    await ensureDatabase(config.databaseUrl);
    dataSource = new DataSource(dataSourceOptions(config.databaseUrl, []));
    await dataSource.initialize();
  });
  afterAll(async () => {
    await dataSource.destroy();
    await dropDatabase(config.databaseUrl);
  });

  it("poolOf is the data source's own pg pool", async () => {
    const pool = poolOf(dataSource);
    expect(pool).toBeInstanceOf(Pool);
    const { rows } = await pool.query<{ db: string }>('SELECT current_database() AS db');
    expect(rows[0].db).toBe(new URL(config.databaseUrl).pathname.slice(1));
    // the very pool TypeORM's own queries take their connections from
    let acquired = 0;
    const count = () => acquired++;
    pool.on('acquire', count);
    await dataSource.query('SELECT 1');
    pool.off('acquire', count);
    expect(acquired).toBe(1);
  });

  it("clientOf is the connection holding the QueryRunner's transaction", async () => {
    const queryRunner = dataSource.createQueryRunner();
    expect(clientOf(queryRunner)).toBeUndefined();
    await queryRunner.connect();
    await queryRunner.startTransaction();
    try {
      const client = clientOf(queryRunner);
      expect(client).toBeDefined();
      await queryRunner.query('CREATE TEMPORARY TABLE pinned (x int) ON COMMIT DROP');
      await client!.query('INSERT INTO pinned VALUES (7)');
      const [{ x }] = await queryRunner.query('SELECT x FROM pinned');
      expect(x).toBe(7);
    } finally {
      await queryRunner.rollbackTransaction();
      await queryRunner.release();
    }
  });

  it('withPoolClient survives its connection dying between two statements and drops that connection', async () => {
    const pool = poolOf(dataSource);
    let killed: number | undefined;
    const work = withPoolClient(pool, async (client) => {
      const [{ pid }] = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows;
      killed = pid;
      // Killed while no statement runs on it: pg emits 'error' on the idle-but-checked-out client,
      // which without withPoolClient's listener is an uncaught exception that fails this test.
      const closed = new Promise((resolve) =>
        (client as unknown as { connection: { once(event: string, fn: () => void): void } }).connection.once(
          'end',
          () => resolve(undefined),
        ),
      );
      await dataSource.query('SELECT pg_terminate_backend($1)', [pid]);
      await closed;
      return client.query('SELECT 1');
    });
    await expect(work).rejects.toThrow();
    // The broken connection left the pool: the next statement runs on another backend.
    const { rows } = await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    expect(killed).toEqual(expect.any(Number));
    expect(rows[0].pid).not.toBe(killed);
  });
});
