/**
 * Every constant that shapes delivery, with why it has its value. What each was measured at is in the git
 * history and bench/results/, not here. Settings a deployment changes are environment variables (see
 * docs/operations.md); these are the code's own.
 */

// Fan-out
/** Outbox events one relay statement claims: large enough to amortise a statement, small enough to commit fast. */
export const FAN_OUT_BATCH = 500;

/** A payload filter's JSON is at most this: small enough to compile and evaluate per event at fan-out. */
export const FILTER_MAX_BYTES = 4 * 1024;
/**
 * $and/$or/$not nest at most this deep, and $and/$or hold at most FILTER_MAX_LIST filters. $in/$nin lists
 * have no count of their own: every value costs at least two bytes of the filter, so FILTER_MAX_BYTES bounds
 * the values one filter compares an event with, in one list or spread over a $or of lists alike.
 */
export const FILTER_MAX_DEPTH = 8;
export const FILTER_MAX_LIST = 100;

// Admission
/** Endpoints admitted in one transaction (and so locked together by the admitter). */
export const ADMIT_ENDPOINTS_PER_TRANSACTION = 200;
/**
 * The queue holds up to this many caps of an endpoint whose answers come fast, so the next batch job is
 * already fetched when a send ends: a sent delivery keeps its place until its record commits.
 */
export const QUEUE_WINDOW_CAPS = 8;
/** An endpoint whose attempts in a batch were all answered 2xx within this counts as fast. */
export const FAST_ANSWER_MS = 100;
/** Batch jobs one admitting statement may name per endpoint (admission number = sequence × this + chunk). */
export const ADMISSION_CHUNKS = 1024;

// Dispatch
/** BullMQ's lock on a job being processed, and how often stalled jobs (dead workers) are looked for. */
export const JOB_LOCK_MS = 10_000;
export const STALLED_CHECK_MS = 5_000;
/** A lease not renewed for this long is free again: no longer than BullMQ takes to hand on a dead worker's jobs. */
export const LEASE_TTL_MS = JOB_LOCK_MS;
/** Leases are renewed this often: several times per TTL, so one slow renewal never loses them. */
export const LEASE_RENEW_EVERY_MS = 3_000;
/** A lease waiter polls Redis for a lease another worker gave back, from this often… */
export const LEASE_MIN_POLL_MS = 2;
/** …doubling up to this: a waiter in the same worker is handed a lease without polling. */
export const LEASE_MAX_POLL_MS = 100;
/** A rate limit of N per second spaces sends this / N apart: a tenth over a second, for late sends and the wire. */
export const RATE_WINDOW_MS = 1100;
/** How late a job may use the rate slot it reserved; later than this it reserves a new one. */
export const RATE_SLOT_GRACE_MS = 40;
/** Redis wakes delayed jobs on its tick (hz 10), so a job waiting for a slot is woken this much before it… */
export const WAKE_BEFORE_SLOT_MS = 120;
/** …and waits the rest in place when it is at most this far off, rather than going back to the delayed set. */
export const SLEEP_FOR_SLOT_MS = 150;
/** A cached endpoint (decrypted secrets) is reloaded after this, or at once when a job carries a newer version. */
export const ENDPOINT_CACHE_MS = 5_000;
/** A job stalled this often is failed by BullMQ; the sweeper queues its deliveries again from PostgreSQL. */
export const MAX_STALLED = 10;
/** BullMQ retries a job that threw (its record could not be written) after this. */
export const JOB_RETRY_DELAY_MS = 1_000;
/** Connections the worker keeps open per receiving origin, and how long an idle one is kept. */
export const HTTP_CONNECTIONS_PER_ORIGIN = 64;
export const HTTP_KEEP_ALIVE_MS = 30_000;
/** Endpoint URLs whose parsed target and policy check are cached; the cache starts over past this. */
export const TARGET_CACHE_SIZE = 10_000;
/** Response bodies are logged up to this many bytes; the rest is not read. */
export const MAX_LOGGED_BODY = 64 * 1024;

// Record
/** Attempt records written by one statement at most. */
export const RECORD_BATCH = 500;
/**
 * How long a batch job's records wait for its answers still outstanding: committing a whole job costs little
 * more than a part, and each commit's successors make the next batch job, so parts would stay parts.
 */
export const RECORD_LINGER_MS = 20;
/** Record statements running at once: one, so the answers that arrive while it commits all join the next. */
export const RECORD_STATEMENTS_AT_ONCE = 1;
/** While PostgreSQL is down, a batch of records is retried this often: the attempts were sent, so must be logged. */
export const RECORD_OUTAGE_RETRY_MS = 1_000;
/** Timeouts in a row after which an endpoint is throttled to one attempt in flight. */
export const THROTTLE_AFTER_TIMEOUTS = 3;

// Recovery
/** The sweeper runs at most this often, whatever WEBHOOKS_SWEEP_GRACE says… */
export const SWEEP_MIN_INTERVAL_MS = 500;
/** …and at least this often. */
export const SWEEP_MAX_INTERVAL_MS = 30_000;
/** Deliveries one sweep checks for a lost job. */
export const SWEEP_BATCH = 1000;
/**
 * Jobs Redis lost are summed up in one line once nothing more was lost or queued again for this long: a
 * lost job still in flight is reported again at each lock renewal (every JOB_LOCK_MS / 2).
 */
export const LOST_JOBS_QUIET_MS = JOB_LOCK_MS;
/** Per-endpoint metric series are exported for this many endpoints only (the busiest), so labels stay bounded. */
export const METRICS_TOP_ENDPOINTS = 10;
/** How long shutdown waits for the queue's Redis connection to finish connecting (Redis may be down). */
export const QUEUE_READY_WAIT_MS = 2000;

// Lifecycle (partitions, retention, erasure)
/** Partitions kept ready ahead of now, in intervals: inserts find theirs while a worker is down this long. */
export const PARTITIONS_AHEAD = 3;
/** Partition upkeep runs at least this often (and once per interval when that is shorter). */
export const MAINTAIN_MAX_INTERVAL_MS = 60_000;
/**
 * The worker vacuums a churned table (store/upkeep.sql.ts) once it has this many dead rows and they are
 * UPKEEP_DEAD_RATIO of its live ones: a queue table holds few live rows, and autovacuum's default scale
 * (or autovacuum turned off) lets its dead ones pile up until statements walk them.
 */
export const UPKEEP_MIN_DEAD_ROWS = 10_000;
export const UPKEEP_DEAD_RATIO = 0.2;
/** Statistics are gathered again after this many changed rows (and this share of the live ones). */
export const UPKEEP_MIN_MODIFIED_ROWS = 10_000;
export const UPKEEP_MODIFIED_RATIO = 0.1;
/**
 * Attaching, detaching or dropping a partition waits at most this long for its lock: a lock request queued
 * behind the tables' readers and writers holds every later write behind it, so it is kept short and tried
 * again (PARTITION_LOCK_ATTEMPTS times, PARTITION_LOCK_PAUSE_MS apart) before giving up until the next round.
 */
export const PARTITION_LOCK_TIMEOUT_MS = 50;
export const PARTITION_LOCK_ATTEMPTS = 20;
export const PARTITION_LOCK_PAUSE_MS = 250;
/** Rows read per round trip while archiving a partition: bounds the worker's memory, not the file. */
export const ARCHIVE_BATCH = 2_000;
/** Pending erasure jobs are looked for this often. */
export const ERASURE_POLL_MS = 1_000;
/** Rows one erasure batch redacts (and locks) in one short transaction. */
export const ERASURE_BATCH = 200;
/** A running erasure whose worker has not finished a batch for this long is taken over by another. */
export const ERASURE_STALE_S = 60;
/** Periodic tasks start within this of boot, spread out so workers started together do not run in step. */
export const MAX_START_JITTER_MS = 1000;

// Endpoint auth
/** An OAuth2 token is used until this long before its expires_in, so none expires on the way. */
export const OAUTH2_TOKEN_MARGIN_MS = 30_000;
/** How long a token whose answer gave no expires_in is used. */
export const OAUTH2_DEFAULT_TTL_MS = 5 * 60_000;
/** One worker fetches an endpoint's token at a time; the others wait for it this long at most… */
export const OAUTH2_FETCH_LOCK_MS = 10_000;
/** …reading Redis this often. */
export const OAUTH2_WAIT_POLL_MS = 25;

// Broker destinations
/** Broker connections a process keeps open at most; past this the least recently used is closed. */
export const BROKER_CONNECTIONS = 256;
/** A broker connection unused for this long is closed. */
export const BROKER_IDLE_MS = 60_000;
/** AMQP heartbeat: a silent dead peer is noticed within about two of these. */
export const BROKER_HEARTBEAT_S = 10;

// Listen sessions (`wharf listen`)
/**
 * A listen session whose stream has been gone this long is deleted with its endpoint: long enough for a
 * laptop's network to come back or a CLI to be restarted, short enough that abandoned sessions go the same day.
 */
export const LISTEN_SESSION_GRACE_MS = 10 * 60_000;
/** The api marks a session's stream alive, and sends a comment down it, this often. */
export const LISTEN_HEARTBEAT_MS = 15_000;
/** How often the worker deletes sessions past their grace. */
export const LISTEN_REAP_EVERY_MS = 60_000;
/** Entries a session's Redis stream keeps at most (about): older ones are trimmed. */
export const LISTEN_STREAM_MAXLEN = 10_000;
/** Entries read from a session's stream at once. */
export const LISTEN_READ_BATCH = 100;
