import { DatabaseError, type Pool, type PoolClient, type QueryConfig, type QueryResult } from 'pg';
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

/** What a keyed request's write stores with its key (see idempotency.hook.ts). */
export interface KeyedWrite {
  company: string;
  key: string;
  /** `POST <path>` */
  route: string;
  hash: string;
  /** The path requested, without a trailing slash: a 201's Location is this and the record's uuid. */
  collection: string;
  ttlMs: number;
}

/**
 * The connection of a keyed request, opened (and its key claimed) when the request first needs the
 * database: a repeat of a stored request is answered before it runs, and a plain create stores its key in
 * its own statement instead (`storedInStatement`), with no transaction around it.
 */
export class RequestPin {
  private opening?: Promise<PinnedConnection>;
  /** Set once a one-statement write stored the key and its answer (committed with the write). */
  storedInStatement = false;

  constructor(
    readonly keyed: KeyedWrite,
    private readonly open: () => Promise<PinnedConnection>,
    /** The key was taken when a one-statement write tried to store it: 'retry' to write in a transaction. */
    readonly taken: () => Promise<'retry'>,
  ) {}

  connection(): Promise<PinnedConnection> {
    return (this.opening ??= this.open());
  }

  /** Neither a connection opened nor the key stored yet: a plain write may store the key itself. */
  get untouched(): boolean {
    return this.opening === undefined && !this.storedInStatement;
  }
}

/** The keyed request in progress whose key a one-statement write may store, if any. */
export function untouchedKeyedRequest(): RequestPin | undefined {
  const pin = RequestContext.pinnedConnection();
  return pin instanceof RequestPin && pin.untouched ? pin : undefined;
}

type Connect = () => Promise<PoolClient>;
const unpinnedConnect = new WeakMap<Pool, Connect>();

/**
 * Makes `pool` hand out the pinned connection of the request in progress, if any, to everything that
 * asks it for a connection (pool.query goes through connect too). Idempotent per pool.
 */
export function makePinnable(pool: Pool): void {
  if (unpinnedConnect.has(pool)) return;
  const connect = pool.connect.bind(pool) as (callback?: unknown) => unknown;
  unpinnedConnect.set(pool, () => connect() as Promise<PoolClient>);
  (pool as unknown as { connect: (callback?: unknown) => unknown }).connect = (callback?: unknown) => {
    const pin = RequestContext.pinnedConnection();
    if (!(pin instanceof PinnedConnection) && !(pin instanceof RequestPin)) return connect(callback);
    const pinned = pin instanceof RequestPin ? pin.connection() : Promise.resolve(pin);
    if (typeof callback !== 'function') return pinned.then((connection) => connection.client);
    pinned.then(
      (connection) => callback(undefined, connection.client, connection.client.release),
      (error: unknown) => callback(error),
    );
    return undefined;
  };
}

/** A connection of the pool's own, whatever the request has pinned (for the pinner itself). */
export function connectUnpinned(pool: Pool): Promise<PoolClient> {
  return (unpinnedConnect.get(pool) ?? (() => pool.connect()))();
}

/** A statement on a connection of the pool's own, whatever the request has pinned. */
export async function queryUnpinned(pool: Pool, config: QueryConfig): Promise<QueryResult> {
  const client = await connectUnpinned(pool);
  let broken: Error | undefined;
  const onError = (error: Error) => (broken = error);
  client.on('error', onError);
  try {
    return await client.query(config);
  } catch (error) {
    // A statement's own error leaves the connection fine; anything else (it died) must not go back.
    if (!(error instanceof DatabaseError)) broken ??= error as Error;
    throw error;
  } finally {
    client.removeListener('error', onError);
    client.release(broken);
  }
}
