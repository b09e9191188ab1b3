import type { EventEmitter } from 'node:events';
import { DataSource, QueryRunnerAlreadyReleasedError } from 'typeorm';
import { RequestContext } from '../tenancy/request-context';
import { WriteListener } from './resource-change';
import { explainDbError } from './resource-errors';
import { DeclaredEvents, WriteTransaction } from './write-transaction';

/**
 * Runs `work` in one transaction scoped to the caller's company; changes and domain events recorded
 * on the transaction are handed to the write listeners (the webhook outbox) before it commits.
 */
export async function runWriteTransaction<T>(
  dataSource: DataSource,
  listeners: WriteListener[],
  declared: DeclaredEvents | undefined,
  work: (tx: WriteTransaction) => Promise<T>,
): Promise<T> {
  const company = RequestContext.companyUuid();
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
    const tx = new WriteTransaction(queryRunner, company, declared);
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
