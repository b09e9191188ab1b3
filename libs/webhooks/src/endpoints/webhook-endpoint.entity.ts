import { BaseResource, ResourceModel } from '@wharf/core';
import { Column, Entity } from 'typeorm';
import { DESTINATION_CONFIG_SCHEMA, HTTP_TYPE } from '../destinations/destination-types';
import {
  ENDPOINT_ORDERINGS,
  ENDPOINT_PAYLOADS,
  ENDPOINT_STATUSES,
  WebhookEndpointDto,
} from './webhook-endpoint.dto';
import { WebhookEndpointHooks } from './webhook-endpoint.hooks';

/**
 * Where a company's webhooks go. The secrets are encrypted with APP_KEY and never
 * serialised; the create response and `GET …/secret` reveal the current one.
 */
@Entity('webhook_endpoints')
@ResourceModel('webhook-endpoint', {
  dto: WebhookEndpointDto,
  searchable: ['url', 'description'],
  hidden: [
    'secret',
    'previous_secret',
    'previous_secret_expires_at',
    'failing_since',
    'consecutive_timeouts',
    'headers_sealed',
    'auth_sealed',
    'config_sealed',
  ],
  readOnly: [
    'secret',
    'verified_at',
    'disabled_at',
    'disabled_reason',
    'api_version',
    'throttled',
    'throttled_reason',
  ],
  hooks: WebhookEndpointHooks,
  events: false,
  schemas: { config: DESTINATION_CONFIG_SCHEMA },
  // webhooks.endpoints:read|write
  permission: 'endpoints',
})
export class WebhookEndpoint extends BaseResource {
  @Column('text') url: string;
  @Column({ type: 'text', nullable: true }) description: string | null;
  @Column({ type: 'jsonb', default: () => `'["*"]'` }) events: string[];
  @Column({ type: 'varchar', enum: ENDPOINT_STATUSES, default: 'enabled' }) status: string;
  @Column('text') secret: string;
  @Column({ type: 'text', nullable: true }) previous_secret: string | null;
  @Column({ type: 'timestamptz', nullable: true }) previous_secret_expires_at: Date | null;
  @Column({ type: 'varchar', default: 'v1' }) api_version: string;
  @Column({ type: 'timestamptz', nullable: true }) verified_at: Date | null;
  @Column({ type: 'timestamptz', nullable: true }) disabled_at: Date | null;
  @Column({ type: 'text', nullable: true }) disabled_reason: string | null;
  @Column({ type: 'timestamptz', nullable: true }) failing_since: Date | null;
  /** Attempts to it running at once across all workers (1–100). */
  @Column('int') max_in_flight: number;
  /** Sends per second across all workers; null = unlimited. */
  @Column({ type: 'int', nullable: true }) rate_limit_per_second: number | null;
  /** `entity`: deliveries about one record (`data.id`) go strictly in commit order. */
  @Column({ type: 'varchar', enum: ENDPOINT_ORDERINGS, default: 'none' }) ordering: string;
  /** `thin`: deliveries carry a reference to the record (id, resource, URL) instead of the record. */
  @Column({ type: 'varchar', enum: ENDPOINT_PAYLOADS, default: 'full' }) payload: string;
  /** Held to one attempt in flight after repeated timeouts, until an attempt succeeds. */
  @Column({ type: 'boolean', default: false }) throttled: boolean;
  @Column({ type: 'text', nullable: true }) throttled_reason: string | null;
  @Column({ type: 'int', default: 0 }) consecutive_timeouts: number;
  /** Which events of its subscription it receives, by their payload (filters/filter-grammar.ts); null = all. */
  @Column({ type: 'jsonb', nullable: true }) filter: Record<string, unknown> | null;
  /** Static headers sent with every delivery: their names, values redacted (sealed in headers_sealed). */
  @Column({ type: 'jsonb', nullable: true }) headers: Record<string, string> | null;
  @Column({ type: 'text', nullable: true }) headers_sealed: string | null;
  /** How deliveries authenticate: the type and non-secret fields (the whole, sealed, in auth_sealed). */
  @Column({ type: 'jsonb', nullable: true }) auth: Record<string, unknown> | null;
  @Column({ type: 'text', nullable: true }) auth_sealed: string | null;
  /** Where deliveries go: `http`, or a broker type (destinations/destination-types.ts). */
  @Column({ type: 'varchar', default: HTTP_TYPE }) type: string;
  /** A broker type's config, each secret field "[redacted]" (the whole, sealed, in config_sealed). */
  @Column({ type: 'jsonb', nullable: true }) config: Record<string, unknown> | null;
  @Column({ type: 'text', nullable: true }) config_sealed: string | null;
  /** Send each attempt's W3C `traceparent` to the receiver (off: trace context stays inside the company). */
  @Column({ type: 'boolean', default: false }) propagate_trace: boolean;
}
