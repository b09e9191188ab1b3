import type { ResourceChange } from './resource-change';
import type { WriteTransaction } from './write-transaction';

/** A stored row of a resource table (all columns, including internal ones). */
export type ResourceRow = Record<string, any>;

/**
 * Domain logic a resource runs inside its own writes, in the write's transaction: validate a change
 * (throw an `ApiError` to refuse it; the transaction rolls back and nothing is emitted), adjust the
 * values about to be written, and emit domain events with `tx.emit(...)` once the change is made.
 *
 * Declared with `@ResourceModel(name, { hooks: OrderHooks })`; the class is a Nest provider of the
 * extension (added to its providers automatically), so it can inject `ResourceServices` and the like.
 * Hooks run for every write of the resource: its own routes, nested writes through another resource's
 * embedded relationship, and `ResourceService` calls made by extension code.
 */
export interface ResourceHooks {
  /** Before an insert; `values` are the validated columns about to be written (may be changed). */
  beforeCreate?(tx: WriteTransaction, values: Record<string, unknown>): void | Promise<void>;
  /**
   * Before an update; `before` is the stored row (locked for a top-level write), `values` the validated
   * columns the write sets (only those sent; may be changed).
   */
  beforeUpdate?(
    tx: WriteTransaction,
    before: ResourceRow,
    values: Record<string, unknown>,
  ): void | Promise<void>;
  /** Before a delete of the stored row `before`. */
  beforeDelete?(tx: WriteTransaction, before: ResourceRow): void | Promise<void>;
  /**
   * After a create, an update that changed something (`change.changes` = `{field: [old, new]}`) or a
   * delete, with the serialised record: the place to emit domain events atomically with the change.
   */
  afterWrite?(tx: WriteTransaction, change: ResourceChange): void | Promise<void>;
}
