import { Pool } from 'pg';
import { QueryRunner } from 'typeorm';
import { prepared as preparedStatement } from '../database/pool';
import { queryUnpinned } from '../database/pinned-connection';
import { ReadReplicas, readQuery } from '../database/read-replicas';
import { clientOf } from '../database/typeorm-pg';

/** Anything that can run a statement and give back rows. */
export interface Sql {
  /** `prepared`: the statement has a fixed shape, worth preparing once per connection where supported. */
  rows(sql: string, params: unknown[], prepared?: boolean): Promise<Record<string, any>[]>;
}

/**
 * Reads straight from the pool pg already keeps for TypeORM: no QueryRunner per statement, and fixed-shape
 * statements (find by uuid, embedded relations) prepared once per connection.
 */
function statement(sql: string, params: unknown[], prepared?: boolean) {
  return prepared ? preparedStatement(sql, params) : { text: sql, values: params };
}

export const sqlOfPool = (pool: Pool): Sql => ({
  rows: async (sql, params, prepared) => (await pool.query(statement(sql, params, prepared))).rows,
});

/** Reads only: on the pool, or on one of the api's `replicas` where read-replicas.ts allows it. */
export const sqlOfReads = (pool: Pool, replicas: ReadReplicas | undefined): Sql => ({
  rows: async (sql, params, prepared) =>
    (await readQuery(pool, statement(sql, params, prepared), replicas)).rows,
});

/** sqlOfPool on a connection of the pool's own even while the request has one pinned (pinned-connection.ts). */
export const sqlOfUnpinnedPool = (pool: Pool): Sql => ({
  rows: async (sql, params, prepared) => (await queryUnpinned(pool, statement(sql, params, prepared))).rows,
});

/**
 * Statements inside a write's transaction, sent on the QueryRunner's own pg connection (the one holding
 * the transaction), without TypeORM's per-statement wrapping.
 */
export const sqlOf = (queryRunner: QueryRunner): Sql => ({
  rows: async (sql, params, prepared) => {
    const client = clientOf(queryRunner);
    if (!client) return (await queryRunner.query(sql, params, true)).records as Record<string, any>[];
    return (await client.query(statement(sql, params, prepared))).rows;
  },
});
