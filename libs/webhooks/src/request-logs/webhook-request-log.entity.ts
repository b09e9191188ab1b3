import { BaseResource, BelongsTo, ResourceModel } from '@wharf/core';
import { Column, Entity, Relation } from 'typeorm';
import { WebhookEndpoint } from '../endpoints/webhook-endpoint.entity';
import { EventVisibility } from '../events/event-visibility';
import { REQUEST_LOGS_TABLE } from '../store/tables';
import { WebhookRequestLogDto } from './webhook-request-log.dto';

export const WEBHOOK_REQUEST_LOG = 'webhook-request-log';
export const ATTEMPT_STATUSES = ['successful', 'failed'];

/** One delivery attempt (or test send): what was sent and what came back. Read-only. */
@Entity(REQUEST_LOGS_TABLE)
@ResourceModel(WEBHOOK_REQUEST_LOG, {
  dto: WebhookRequestLogDto,
  // Not event_id: a random id's grams are keys no other row shares, written on every delivery attempt, and
  // nobody searches a random id by a fragment. `event_id=` finds one exactly, `event_id_like=` still works, unindexed.
  searchable: ['event', 'url'],
  // A log row per attempt, few distinct events and urls: the search index is on the distinct keys
  // (migration 1700000000108), so an attempt's row costs one B-tree entry instead of ~60 GIN entries.
  searchKeys: { table: 'webhook_request_log_search_keys', by: ['webhook_endpoint_uuid', 'event'] },
  // Logs are written on every delivery attempt, and each sortable column is a B-tree entry per attempt: only
  // time (created_at, the default, and sent_at) and status (whose index serves the `status=failed` filter).
  sortable: ['sent_at', 'status'],
  hidden: ['webhook_delivery_uuid'],
  events: false,
  // webhooks.logs:read: a caller reads the rows of the events it may read (its permissions).
  permission: 'logs',
  visibility: { column: 'event', by: EventVisibility },
})
export class WebhookRequestLog extends BaseResource {
  @Column('uuid') webhook_endpoint_uuid: string;
  @Column({ type: 'uuid', nullable: true }) webhook_delivery_uuid: string | null;
  @Column('varchar') event_id: string;
  @Column('varchar') event: string;
  @Column('integer') attempt: number;
  @Column({ type: 'boolean', default: false }) test: boolean;
  @Column('text') url: string;
  @Column('jsonb') request_headers: Record<string, string>;
  @Column('text') request_body: string;
  @Column({ type: 'integer', nullable: true }) response_status: number | null;
  @Column({ type: 'jsonb', nullable: true }) response_headers: Record<string, string> | null;
  @Column({ type: 'text', nullable: true }) response_body: string | null;
  @Column('integer') duration_ms: number;
  @Column({ type: 'text', nullable: true }) error: string | null;
  @Column({ type: 'varchar', enum: ATTEMPT_STATUSES }) status: string;
  @Column('timestamptz') sent_at: Date;

  @BelongsTo(() => WebhookEndpoint, { onDelete: 'CASCADE' }) webhook_endpoint: Relation<WebhookEndpoint>;
}
