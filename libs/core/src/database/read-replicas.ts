import { Logger } from '@nestjs/common';
import { DatabaseError, Pool, type QueryConfig, type QueryResult } from 'pg';
import { describeFailure, unavailableDependency } from '../common/outage';
import { within } from '../common/within';
import { RequestContext, type RequestScope } from '../tenancy/request-context';
import { PrimaryPositions } from './replica-lag';
import { WriteMarks, parseLsn } from './write-marks';

/** How often the api reads the primary's WAL position and each replica's replay position. */
const REPLICA_SAMPLE_MS = 100;
/** A sample that takes longer finds its server down. */
const SAMPLE_TIMEOUT_MS = 1500;
// The insert position, not the write position: at or past a commit whatever synchronous_commit says.
const PRIMARY_POSITION =
  'SELECT pg_current_wal_lsn()::text AS written, pg_current_wal_insert_lsn()::text AS inserted';
const REPLAY_POSITION = 'SELECT pg_last_wal_replay_lsn()::text AS replayed';

/** up: reads may go there; down: unreachable (or not a standby); lagging: further behind than allowed. */
export type ReplicaState = 'up' | 'down' | 'lagging';

interface Replica {
  /** 1-based, in the order of DATABASE_REPLICA_URLS: the `replica` label of its metrics. */
  number: number;
  pool: Pool;
  /** The sampler's own connection. */
  sampler: Pool;
  state: ReplicaState;
  replayed?: bigint;
  lagMs: number;
  /** Sampled once at least (its first state is logged, whatever it is). */
  seen?: boolean;
}

/**
 * A read a replica has not answered in this long runs on the primary instead: a replica that froze or whose
 * network went silent never closes its connections, and without a bound its reads would wait for ever.
 */
const REPLICA_READ_TIMEOUT_MS = 5000;

/** The api's pool of `max` connections to `url`; a connection that dies idle is the sampler's to notice. */
function poolOf(url: string, max: number, name: string): Pool {
  const pool = new Pool({
    connectionString: url,
    max,
    connectionTimeoutMillis: 2000,
    query_timeout: REPLICA_READ_TIMEOUT_MS,
    keepAlive: true,
    application_name: name,
  });
  pool.on('error', () => undefined);
  return pool;
}

/** The key of a caller's writes: its portal session, else its API key (random uuids both). */
function callerOf(scope: RequestScope | undefined): string | undefined {
  return scope?.portal?.sessionUuid ?? scope?.apiKeyUuid;
}

/**
 * The api's streaming replicas: a pool per replica (own pg pools, not TypeORM's replication, which picks a
 * replica at random without regard to lag or health, wraps each read in a QueryRunner, and would move
 * TypeORM's own reads, the worker's included, to the replicas). A read of a GET goes to a replica that is
 * up, within the allowed lag, and has replayed its caller's last write; otherwise, or when the replica
 * fails it, to the primary.
 */
export class ReadReplicas {
  readonly marks = new WriteMarks();
  private readonly logger = new Logger('replicas');
  private readonly replicas: Replica[];
  private readonly positions: PrimaryPositions;
  /**
   * The samples run on connections of their own: a pool saturated by reads never delays them, and they never
   * take the place of a read's last statement in pg_stat_activity.
   */
  private readonly primarySampler: Pool;
  private samplesStarted = 0;
  private sampling?: Promise<void>;
  private timer?: NodeJS.Timeout;
  private next = 0;
  /** Told of every read: which server answered it. */
  onRead?: (server: 'primary' | 'replica') => void;

  constructor(
    readonly primary: Pool,
    primaryUrl: string,
    urls: string[],
    private readonly maxLagMs: number,
  ) {
    this.positions = new PrimaryPositions(maxLagMs + SAMPLE_TIMEOUT_MS);
    this.primarySampler = poolOf(primaryUrl, 1, 'wharf-api-sampler');
    this.replicas = urls.map((url, i) => ({
      number: i + 1,
      pool: poolOf(url, 20, 'wharf-api'),
      sampler: poolOf(url, 1, 'wharf-api-sampler'),
      state: 'down',
      lagMs: Infinity,
    }));
  }

  /** Samples once, then every REPLICA_SAMPLE_MS. */
  async start(): Promise<void> {
    await this.sample();
    this.timer ??= setInterval(() => {
      this.sampling ??= this.sample().finally(() => (this.sampling = undefined));
    }, REPLICA_SAMPLE_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.sampling;
    const pools = [
      this.primarySampler,
      ...this.replicas.flatMap((replica) => [replica.pool, replica.sampler]),
    ];
    await Promise.all(pools.map((pool) => pool.end().catch(() => undefined)));
  }

  /** Each replica's state and lag (in seconds, Infinity when unknown), in configuration order. */
  states(): { number: number; state: ReplicaState; lagSeconds: number }[] {
    return this.replicas.map(({ number, state, lagMs }) => ({ number, state, lagSeconds: lagMs / 1000 }));
  }

  /** The caller of the request being handled has written (and committed). */
  wrote(scope: RequestScope | undefined): void {
    const caller = callerOf(scope);
    if (caller !== undefined) this.marks.wrote(caller, this.samplesStarted);
  }

  /** Where a read of the request being handled goes: a replica only in a GET or HEAD, for its caller. */
  choose(): Pool {
    if (!RequestContext.readsOnly()) return this.primary;
    const needed = this.marks.needed(callerOf(RequestContext.current()));
    if (needed === undefined) return this.primary;
    for (let i = 0; i < this.replicas.length; i++) {
      const replica = this.replicas[(this.next + i) % this.replicas.length];
      if (replica.state === 'up' && replica.replayed! >= needed) {
        this.next = replica.number % this.replicas.length;
        return replica.pool;
      }
    }
    return this.primary;
  }

  /** A read where choose() sends it; one a replica fails runs on the primary. */
  async query<R extends Record<string, any>>(config: QueryConfig): Promise<QueryResult<R>> {
    const pool = this.choose();
    if (pool === this.primary) {
      this.onRead?.('primary');
      return this.primary.query<R>(config);
    }
    try {
      const result = await pool.query<R>(config);
      this.onRead?.('replica');
      return result;
    } catch (error) {
      // A statement's own error comes again from the primary; a replica gone or cancelling is skipped.
      const replica = this.replicas.find((each) => each.pool === pool)!;
      if (!(error instanceof DatabaseError) || unavailableDependency(error)) this.lost(replica, error);
      this.onRead?.('primary');
      return this.primary.query<R>(config);
    }
  }

  /** Reads the primary's position, then each replica's replay position. */
  private async sample(): Promise<void> {
    const sample = ++this.samplesStarted;
    let written: bigint;
    try {
      const { rows } = await within(this.primarySampler.query(PRIMARY_POSITION), SAMPLE_TIMEOUT_MS);
      written = parseLsn(rows[0].written);
      this.marks.settle(sample, parseLsn(rows[0].inserted));
    } catch {
      // The primary's outage is the api's to report; its replicas are not read meanwhile.
      return;
    }
    this.positions.add(Date.now(), written);
    await Promise.all(this.replicas.map((replica) => this.sampleReplica(replica)));
    const replayed = this.replicas.map((replica) => replica.replayed ?? 0n);
    this.marks.forgetReplayed(replayed.reduce((least, each) => (each < least ? each : least)));
  }

  private async sampleReplica(replica: Replica): Promise<void> {
    try {
      const { rows } = await within(replica.sampler.query(REPLAY_POSITION), SAMPLE_TIMEOUT_MS);
      if (rows[0].replayed === null) throw new Error('not a standby (pg_last_wal_replay_lsn() is null)');
      replica.replayed = parseLsn(rows[0].replayed);
    } catch (error) {
      this.lost(replica, error);
      return;
    }
    replica.lagMs = this.positions.lagMs(replica.replayed, Date.now());
    const state = replica.lagMs > this.maxLagMs ? 'lagging' : 'up';
    if (state !== replica.state || !replica.seen)
      this.logger.log(`replica ${replica.number} ${state}, ${this.lag(replica)}`);
    replica.state = state;
    replica.seen = true;
  }

  private lost(replica: Replica, error: unknown): void {
    if (replica.state !== 'down' || !replica.seen)
      this.logger.warn(`replica ${replica.number} down, reads go to the primary: ${describeFailure(error)}`);
    replica.state = 'down';
    replica.seen = true;
    replica.lagMs = Infinity;
  }

  private lag(replica: Replica): string {
    return `${(replica.lagMs / 1000).toFixed(3)} s behind the primary`;
  }
}

/**
 * A statement that only reads, on one of `replicas` (see ReadReplicas.choose), or on `primary` when the
 * process has none (the worker, the CLI, an api without DATABASE_REPLICA_URLS).
 */
export function readQuery<R extends Record<string, any> = any>(
  primary: Pool,
  config: QueryConfig,
  replicas: ReadReplicas | undefined,
): Promise<QueryResult<R>> {
  return replicas ? replicas.query<R>(config) : primary.query<R>(config);
}
