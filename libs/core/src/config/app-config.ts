export type NodeEnv = 'development' | 'production' | 'test';

/** The kernel's settings: what every process reads, whatever libraries it is composed of. */
export interface KernelConfig {
  nodeEnv: NodeEnv;
  /** Address the api binds to. */
  host: string;
  port: number;
  databaseUrl: string;
  /** Streaming replicas the api may read from (DATABASE_REPLICA_URLS); empty: every read on the primary. */
  databaseReplicaUrls: string[];
  /** A replica further behind than this is skipped until it catches up. */
  databaseReplicaMaxLagMs: number;
  redisUrl: string;
  /** Redis Cluster seed nodes (host:port); when set, REDIS_URL only supplies credentials and TLS. */
  redisClusterNodes: { host: string; port: number }[] | undefined;
  queuePrefix: string;
  appKey: Buffer;
  /** The key before the last rotation (APP_KEY_PREVIOUS): still opens secrets, which are re-encrypted on use. */
  appKeyPrevious: Buffer | undefined;
  appKeyGenerated: boolean;
  extensions: string[] | undefined;
  logLevel: string;
  rateLimitPerMinute: number;
  /** Browser origins allowed to call the api: `*` (any) or exact origins; empty = none. */
  corsOrigins: '*' | string[];
  /** While Redis is down: let requests through unchecked (open) or answer 503 (closed). */
  rateLimitFail: 'open' | 'closed';
  /** A worker waits this long for in-flight deliveries on shutdown, then hands them back to the queue. */
  shutdownTimeoutMs: number;
  /** The worker's /metrics listener (0 = none). */
  metricsPort: number;
  /** When set, GET /metrics needs `Authorization: Bearer <token>`. */
  metricsToken: string | undefined;
  /** When set, the queue dashboard is mounted at /admin/queues behind this token. */
  adminToken: string | undefined;
  /** The api's address as its clients reach it (no trailing slash): absolute links in webhook payloads. */
  publicUrl: string;
  /** How long an Idempotency-Key and the answer stored with it are kept. */
  idempotencyTtlMs: number;
  /** The CSP `frame-ancestors` sources of the console: who may embed it (the company portal) in a frame. */
  portalFrameAncestors: string[];
}

/**
 * The whole configuration: the kernel's settings and the section of each library, which that library
 * declares here (`declare module '@wharf/core' { interface AppConfig { webhooks: WebhooksConfig } }`) and
 * registers with registerConfigSection.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by the libraries' module augmentation
export interface AppConfig extends KernelConfig {}
