import type { EventEmitter } from 'node:events';
import { DataSource, QueryRunnerAlreadyReleasedError } from 'typeorm';
import { lostRace } from '../database/lost-race';
import { ApiError } from '../common/api-error';
import { RequestContext } from '../tenancy/request-context';
import type { WriteTransaction } from './resource-definition';
import type { WriteListener } from './write-listener';
import { explainDbError } from './resource-errors';
import { DeclaredEvents, openWriteTransaction } from './write-transaction';

/** Runs of a write transaction that lost a race (a worker writing the same rows in another order). */
export const WRITE_ATTEMPTS = 3;

/**
 * Runs `work` in one transaction scoped to the caller's company; changes and domain events recorded
 * on the transaction are handed to the write listeners (the webhook outbox) before it commits. A
 * transaction PostgreSQL chose as a deadlock's victim (or a serialization failure) rolled back whole and
 * runs again, as PostgreSQL's documentation advises: up to WRITE_ATTEMPTS runs, then a 503 to retry.
 */
export async function runWriteTransaction<T>(
  dataSource: DataSource,
  listeners: WriteListener[],
  declared: DeclaredEvents | undefined,
  work: (tx: WriteTransaction) => Promise<T>,
): Promise<T> {
  const company = RequestContext.companyUuid();
  for (let attempt = 1; ; attempt++) {
    try {
      return await writeOnce(dataSource, company, listeners, declared, work);
    } catch (error) {
      if (!lostRace(error)) throw error;
      if (attempt === WRITE_ATTEMPTS) {
        throw ApiError.retryAfter(503, 1, 'The write kept conflicting with concurrent ones; retry.', {
          code: 'write_conflict',
        });
      }
      // Apart, so the racers do not meet again at once.
      await new Promise((resolve) => setTimeout(resolve, 10 * attempt + Math.random() * 40));
    }
  }
}

async function writeOnce<T>(
  dataSource: DataSource,
  company: string,
  listeners: WriteListener[],
  declared: DeclaredEvents | undefined,
  work: (tx: WriteTransaction) => Promise<T>,
): Promise<T> {
  const queryRunner = dataSource.createQueryRunner();
  await queryRunner.connect();
  // When the connection dies TypeORM releases the runner, and every later call (the next statement, the
  // rollback) throws QueryRunnerAlreadyReleasedError: keep the error that killed it, to report that one.
  let lost: unknown;
  const connection = (queryRunner as unknown as { databaseConnection?: EventEmitter }).databaseConnection;
  const onLost = (error: unknown) => (lost ??= error);
  connection?.on('error', onLost);
  try {
    await queryRunner.startTransaction();
    const tx = openWriteTransaction(queryRunner, company, declared);
    const result = await work(tx);
    if (tx.changes.length || tx.events.length) {
      for (const listener of listeners)
        await listener.beforeCommit(queryRunner, company, tx.changes, tx.events);
    }
    await queryRunner.commitTransaction();
    return result;
  } catch (error) {
    // A connection that died mid-transaction cannot roll back (PostgreSQL already did): the error that
    // killed it is the one to report, never the rollback's QueryRunnerAlreadyReleasedError.
    if (queryRunner.isTransactionActive) await queryRunner.rollbackTransaction().catch(() => undefined);
    throw explainDbError(lost && error instanceof QueryRunnerAlreadyReleasedError ? lost : error);
  } finally {
    connection?.removeListener('error', onLost);
    await queryRunner.release();
  }
}
