import { Pool, PoolClient } from 'pg';
import { DataSource, QueryRunner } from 'typeorm';

/**
 * The one place that reaches into TypeORM's PostgreSQL driver: hot paths use pg's own pool and a
 * transaction's own connection directly, without TypeORM's per-statement wrapping. These are internal
 * fields of TypeORM (`PostgresDriver.master`, `PostgresQueryRunner.databaseConnection`);
 * test/typeorm-pg.e2e-spec.ts pins them, so an upgrade that moves them fails there, not in production.
 */

/** pg's pool behind a TypeORM data source. */
export function poolOf(dataSource: DataSource): Pool {
  const pool = (dataSource.driver as unknown as { master?: Pool }).master;
  if (!pool) throw new Error('TypeORM has no pg pool on driver.master: the data source is not initialised');
  return pool;
}

/** The pg connection a connected QueryRunner holds (its transaction's), or undefined before `connect()`. */
export function clientOf(queryRunner: QueryRunner): PoolClient | undefined {
  return (queryRunner as unknown as { databaseConnection?: PoolClient }).databaseConnection;
}

/**
 * Runs `work` on a connection checked out of the pool. pg-pool listens for a checked-out connection's
 * errors only while it runs a query: a connection killed between two statements (PostgreSQL stopping)
 * emits an 'error' nobody handles, and that crashes the process. Here the statement that follows fails
 * instead, and the broken connection is destroyed rather than returned to the pool.
 */
export async function withPoolClient<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const onError = (error: Error) => (broken = error);
  client.on('error', onError);
  try {
    return await work(client);
  } finally {
    client.removeListener('error', onError);
    client.release(broken);
  }
}
