import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@wharf/core';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { openEndpointSecrets } from '../../endpoints/endpoint-secrets';
import { UnreadableSecretError } from '../../endpoints/secrets';
import { StoredDestination, openDestination } from '../../endpoints/endpoint-config';
import { openCredentials } from '../../endpoints/endpoint-credentials-open';
import { EndpointAuth } from '../../transport/endpoint-auth';
import { ENDPOINT_CACHE_MS } from '../../tuning';

export interface CachedEndpoint {
  uuid: string;
  url: string;
  status: string;
  /** `http`, or a broker type whose `config` (credentials decrypted) says where to publish. */
  type: string;
  config?: Record<string, unknown>;
  /** Sends per second across all workers, or null for no limit. */
  rateLimitPerSecond: number | null;
  /** `thin`: its deliveries carry a reference to the record (ThinEnvelopes), not the record. */
  payload: string;
  /** Its attempts send their `traceparent` (propagate_trace). */
  propagateTrace: boolean;
  /** updated_at in ms: any change to the endpoint (rotation, disable, new URL) bumps it. */
  version: number;
  secrets: string[];
  /** When the previous secret stops being valid (ms), if there is one. */
  previousExpires: number;
  /** Set when no configured key opens the current secret: nothing can be signed, so nothing is sent. */
  unreadableSecret?: string;
  headers?: Record<string, string>;
  auth?: EndpointAuth;
  loadedAt: number;
}

/**
 * Endpoints with decrypted secrets, kept briefly so a delivery needs no read of its own. Each job carries
 * the endpoint's version at enqueue time: a cached copy older than that is reloaded.
 */
@Injectable()
export class EndpointCache {
  private readonly entries = new Map<string, Promise<CachedEndpoint | undefined>>();
  private readonly logger = new Logger('delivery');

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async get(uuid: string, minVersion: number): Promise<CachedEndpoint | undefined> {
    const cached = await this.entries.get(uuid);
    if (cached && cached.version >= minVersion && Date.now() - cached.loadedAt < ENDPOINT_CACHE_MS)
      return cached;
    const loading = this.load(uuid);
    this.entries.set(uuid, loading);
    loading.catch(() => this.entries.delete(uuid));
    return loading;
  }

  /** Secrets valid right now (the previous one only during its grace period). */
  secrets(endpoint: CachedEndpoint): string[] {
    return endpoint.previousExpires > Date.now() ? endpoint.secrets : endpoint.secrets.slice(0, 1);
  }

  /** The type and opened config; a config no key opens sends nothing, as a secret no key opens. */
  private destination(row: StoredDestination) {
    const { type, config, unreadable } = openDestination(row, this.config);
    return unreadable ? { type, unreadableSecret: unreadable } : { type, config };
  }

  private async load(uuid: string): Promise<CachedEndpoint | undefined> {
    const [row] = await this.dataSource.query(
      `SELECT uuid, url, status, rate_limit_per_second, payload, secret, previous_secret, previous_secret_expires_at,
              headers_sealed, auth_sealed, type, config_sealed, propagate_trace,
              (extract(epoch FROM updated_at) * 1000)::bigint AS version
       FROM webhook_endpoints WHERE uuid = $1`,
      [uuid],
    );
    if (!row) return undefined;
    const endpoint = {
      uuid: row.uuid,
      url: row.url,
      status: row.status,
      rateLimitPerSecond: row.rate_limit_per_second as number | null,
      payload: row.payload as string,
      propagateTrace: row.propagate_trace === true,
      version: Number(row.version),
      ...openCredentials(row, this.config),
      ...this.destination(row),
    };
    try {
      const opened = await openEndpointSecrets(row, this.config, (sql, params) =>
        this.dataSource.query(sql, params),
      );
      return {
        ...endpoint,
        secrets: opened.previous === undefined ? [opened.current] : [opened.current, opened.previous],
        previousExpires: opened.previousExpires,
        loadedAt: Date.now(),
      };
    } catch (error) {
      if (!(error instanceof UnreadableSecretError)) throw error;
      this.logger.error({
        msg: 'webhook endpoint secret cannot be decrypted: set APP_KEY_PREVIOUS to the key it was saved with, or rotate the secret',
        endpoint: row.uuid,
      });
      return {
        ...endpoint,
        secrets: [],
        previousExpires: 0,
        unreadableSecret: error.message,
        loadedAt: Date.now(),
      };
    }
  }
}
