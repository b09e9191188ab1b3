import { clientOf, dataSourceOptions, dropDatabase, ensureDatabase, poolOf } from '@wharf/core';
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
});
