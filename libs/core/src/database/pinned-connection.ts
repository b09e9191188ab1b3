import type { Pool, PoolClient } from 'pg';
import { RequestContext } from '../tenancy/request-context';

/** A statement that begins or ends a transaction, as code written for a connection of its own sends it. */
const TRANSACTION_CONTROL =
  /^\s*(start\s+transaction|begin|commit|end|rollback|abort)(\s+(work|transaction))?\s*;?\s*$/i;

type QueryArgs = [unknown, ...unknown[]];

/**
 * One connection, already in a transaction, that every statement of a request runs on while it is pinned
 * (RequestContext.pinConnection): the pool hands out `client` instead of a connection of its own, so a
 * request's writes, whichever way they reach the database (pool.query, a TypeORM QueryRunner, a checked-out
 * client), commit or roll back together with what its pinner writes in the same transaction. A transaction
 * begun on it becomes a savepoint, its commit a release and its rollback a rollback to the savepoint.
 */
export class PinnedConnection {
  private depth = 0;
  readonly client: PoolClient;

  constructor(private readonly own: PoolClient) {
    const forward =
      (method: 'on' | 'once' | 'removeListener' | 'off') =>
      (event: string, listener: (...args: unknown[]) => void) => {
        (own[method] as (event: string, listener: (...args: unknown[]) => void) => unknown)(event, listener);
        return this.client;
      };
    this.client = {
      query: (...args: QueryArgs) => (own.query as (...a: unknown[]) => unknown)(...this.translated(args)),
      // The pinner releases the connection, once its transaction is over.
      release: () => undefined,
      on: forward('on'),
      once: forward('once'),
      removeListener: forward('removeListener'),
      off: forward('off'),
    } as unknown as PoolClient;
  }

  private translated(args: QueryArgs): unknown[] {
    const [first, ...rest] = args;
    const text = typeof first === 'string' ? first : (first as { text?: unknown } | null)?.text;
    const match = typeof text === 'string' ? TRANSACTION_CONTROL.exec(text) : null;
    if (!match) return args;
    const word = match[1].toLowerCase();
    let statement: string;
    if (word.startsWith('start') || word === 'begin') statement = `SAVEPOINT wharf_pinned_${++this.depth}`;
    // Ending a transaction it never began would end the pinner's: nothing to do.
    else if (this.depth === 0) statement = 'SELECT 1';
    else {
      const name = `wharf_pinned_${this.depth--}`;
      statement =
        word === 'rollback' || word === 'abort'
          ? `ROLLBACK TO SAVEPOINT ${name}`
          : `RELEASE SAVEPOINT ${name}`;
    }
    // Only the text: its values (there are none) and a callback pass through.
    return [statement, ...rest.filter((arg) => typeof arg === 'function')];
  }
}

const pinnable = new WeakSet<Pool>();

/**
 * Makes `pool` hand out the pinned connection of the request in progress, if any, to everything that
 * asks it for a connection (pool.query goes through connect too). Idempotent per pool.
 */
export function makePinnable(pool: Pool): void {
  if (pinnable.has(pool)) return;
  pinnable.add(pool);
  const connect = pool.connect.bind(pool) as (callback?: unknown) => unknown;
  (pool as unknown as { connect: (callback?: unknown) => unknown }).connect = (callback?: unknown) => {
    const pinned = RequestContext.pinnedConnection();
    if (!(pinned instanceof PinnedConnection)) return connect(callback);
    if (typeof callback !== 'function') return Promise.resolve(pinned.client);
    process.nextTick(() => callback(undefined, pinned.client, pinned.client.release));
    return undefined;
  };
}
