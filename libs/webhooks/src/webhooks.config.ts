import { ConfigError, configReaders, registerConfigSection, type Env, type KernelConfig } from '@wharf/core';

export interface WebhooksConfig {
  retrySchedule: number[];
  timeoutMs: number;
  allowPrivateTargets: boolean;
  concurrency: number;
  /** max_in_flight of a new endpoint: attempts to it running at once across all workers. */
  endpointConcurrency: number;
  /** Request-log rows are dropped with their partition once its newest possible row is this old (days, may be fractional). */
  logRetentionDays: number;
  /** Outbox events likewise, unless a pending delivery or the relay still needs one (see docs/data-lifecycle.md). */
  eventRetentionDays: number;
  /** The time span of one partition of webhook_events and webhook_request_logs. */
  partitionIntervalMs: number;
  /** When set, each partition is written here as gzip JSON Lines before it is dropped. */
  archiveDir: string | undefined;
  autoDisableAfterDays: number;
  senderAddresses: string[];
  /** How often the relay polls the outbox when no NOTIFY arrives. */
  pollIntervalMs: number;
  /** A pending delivery this late is re-enqueued by the sweeper (e.g. Redis lost its jobs). */
  sweepGraceMs: number;
}

declare module '@wharf/core' {
  interface AppConfig {
    /** The WEBHOOKS_* variables: present in every process that loads this library. */
    webhooks: WebhooksConfig;
  }
}

const { boolean, days, durations, integer, text } = configReaders;

/** WEBHOOKS_PARTITION_INTERVAL: whole seconds, at least one (partition names carry the second). */
function partitionInterval(env: Env): number {
  const ms = durations(env, 'WEBHOOKS_PARTITION_INTERVAL', '1d')[0];
  if (ms < 1000 || ms % 1000 !== 0) {
    throw new ConfigError('WEBHOOKS_PARTITION_INTERVAL', `must be whole seconds, at least 1s, got ${ms} ms`);
  }
  return ms;
}

/** Reads the WEBHOOKS_* variables (private targets are allowed by default outside production). */
export function readWebhooksConfig(env: Env, { nodeEnv }: Readonly<KernelConfig>): WebhooksConfig {
  const senders = text(env, 'WEBHOOKS_SENDER_ADDRESSES', '');
  return {
    retrySchedule: durations(env, 'WEBHOOKS_RETRY_SCHEDULE', '5s,5m,30m,2h,5h,10h,10h'),
    timeoutMs: integer(env, 'WEBHOOKS_TIMEOUT_MS', 15000, 1, 600_000),
    allowPrivateTargets: boolean(env, 'WEBHOOKS_ALLOW_PRIVATE_TARGETS', nodeEnv !== 'production'),
    concurrency: integer(env, 'WEBHOOKS_CONCURRENCY', 50, 1, 1000),
    endpointConcurrency: integer(env, 'WEBHOOKS_ENDPOINT_CONCURRENCY', 10, 1, 100),
    logRetentionDays: days(env, 'WEBHOOKS_LOG_RETENTION_DAYS', 30),
    eventRetentionDays: days(env, 'WEBHOOKS_EVENT_RETENTION_DAYS', 30),
    partitionIntervalMs: partitionInterval(env),
    archiveDir: text(env, 'WEBHOOKS_ARCHIVE_DIR', '') || undefined,
    autoDisableAfterDays: integer(env, 'WEBHOOKS_AUTO_DISABLE_AFTER_DAYS', 5, 1),
    senderAddresses: senders ? senders.split(',').map((address) => address.trim()) : [],
    pollIntervalMs: durations(env, 'WEBHOOKS_POLL_INTERVAL', '1s')[0],
    sweepGraceMs: durations(env, 'WEBHOOKS_SWEEP_GRACE', '5s')[0],
  };
}

// On loading the library, so every process composing Wharf (api, worker, cli, tests) has its section
// before it reads its configuration.
registerConfigSection({ key: 'webhooks', read: readWebhooksConfig });
