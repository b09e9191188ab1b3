import { Injectable } from '@nestjs/common';
import { ApiError, JsonText, RequestContext } from '@wharf/core';
import { EventsStore } from '../store/events.store';
import { EVENT_ID } from '../outbox/event-id';
import { readEventQuery } from './events-query';
import { EventVisibility } from '../events/event-visibility';

/**
 * The events API: the company's outbox events while they are retained, newest first, with the delivery
 * state beside each. Envelopes are sent as stored (the JSON text PostgreSQL keeps), never re-serialised.
 */
@Injectable()
export class EventsService {
  constructor(
    private readonly store: EventsStore,
    private readonly visibility: EventVisibility,
  ) {}

  /** `{"events": [envelope…], "meta": {"per_page", "next_cursor"}}`, a keyset page. */
  async list(query: Record<string, unknown>): Promise<JsonText> {
    const read = readEventQuery(RequestContext.companyUuid(), query);
    const readable = this.visibility.readableEvents() ?? null;
    const rows = await this.store.list({ ...read, limit: read.limit + 1, readable });
    const page = rows.slice(0, read.limit);
    const meta = {
      per_page: read.limit,
      next_cursor: rows.length > read.limit ? page[page.length - 1].event_id : null,
    };
    const envelopes = page.flatMap((row, i) => (i ? [',', row.payload] : [row.payload]));
    return new JsonText('{"events":[', ...envelopes, `],"meta":${JSON.stringify(meta)}}`);
  }

  /** `{"event": envelope, "deliveries": [{webhook_endpoint_uuid, status, attempts, next_attempt_at}]}` */
  async find(eventId: string): Promise<JsonText> {
    const rows = EVENT_ID.test(eventId)
      ? await this.store.deliveries(
          RequestContext.companyUuid(),
          eventId,
          this.visibility.readableEvents() ?? null,
        )
      : [];
    if (!rows.length) throw ApiError.notFound(`No stored event ${eventId.slice(0, 80)} in this company.`);
    const deliveries = rows
      .filter((row) => row.webhook_endpoint_uuid !== null)
      .map(({ webhook_endpoint_uuid, status, attempts, next_attempt_at }) => ({
        webhook_endpoint_uuid,
        status,
        attempts,
        next_attempt_at,
      }));
    return new JsonText(`{"event":${rows[0].payload},"deliveries":${JSON.stringify(deliveries)}}`);
  }
}
