import { Injectable } from '@nestjs/common';
import { ApiError, BODY_POINTER, RequestContext, attributePointer } from '@wharf/core';
import { WebhookEndpointsService } from '../endpoints/webhook-endpoints.service';
import { checkFilter } from '../filters/endpoint-filter';
import { FilterEvaluator, FilterVerdict } from '../filters/filter-evaluator';
import { isOperational, subscribes } from '../outbox/operational-events';
import { DeliveryStore, EventRoutingRow } from '../store/delivery.store';
import { readActionBody } from './action-body';
import { EventVisibility } from '../events/event-visibility';
import { FilterTestDto } from './filter-test.dto';

/** Why an endpoint did or did not get a delivery of an event. */
export type RoutingReason =
  | 'delivered'
  | 'delivery'
  | 'not_fanned_out_yet'
  | 'created_after_event'
  | 'event_not_subscribed'
  | 'about_itself'
  | 'filter'
  | 'disabled'
  | 'no_delivery';

const DETAIL: Record<RoutingReason, string> = {
  delivered: 'Delivered: the receiver answered 2xx.',
  delivery: 'A delivery was made; see its status.',
  not_fanned_out_yet: 'The event is still in the outbox: no endpoint has been matched yet.',
  created_after_event: 'The endpoint was created after the event.',
  event_not_subscribed: "The event's name is not among the endpoint's events.",
  about_itself: 'An operational event is never sent to the endpoint it is about.',
  filter: "The endpoint's filter does not match the event (see failed_clause).",
  disabled: 'The endpoint is disabled.',
  no_delivery:
    'The endpoint matches now but has no delivery: it was disabled, or filtered otherwise, when the event was fanned out.',
};

/**
 * Why events did or did not reach endpoints: `GET /events/:event_id/routing` for every endpoint of the
 * company, and an endpoint's `filter-test`. Filters are evaluated by PostgreSQL, as at fan-out.
 */
@Injectable()
export class EventRoutingService {
  constructor(
    private readonly store: DeliveryStore,
    private readonly filters: FilterEvaluator,
    private readonly endpoints: WebhookEndpointsService,
    private readonly visibility: EventVisibility,
  ) {}

  async routing(eventId: string) {
    // An event the caller may not read is one it cannot know of either.
    const readable = this.visibility.readableEvents() ?? null;
    const rows = await this.store.eventRouting(RequestContext.companyUuid(), eventId, readable);
    if (!rows.length) throw ApiError.notFound(`No stored event ${eventId} in this company.`);
    const [first] = rows;
    const endpoints = rows.filter((row) => row.endpoint !== null);
    const verdicts = await this.filters.explain(
      endpoints.map((row) => row.filter),
      endpoints.map(() => first.payload),
    );
    const about = isOperational(first.name)
      ? JSON.parse(first.payload).data?.webhook_endpoint_uuid
      : undefined;
    return {
      event: {
        event_id: eventId,
        name: first.name,
        created_at: first.event_created_at,
        fanned_out: !first.pending,
      },
      routing: endpoints.map((row, i) => {
        const reason = this.reason(row, verdicts[i], about);
        return {
          webhook_endpoint_uuid: row.endpoint,
          url: row.url,
          status: row.endpoint_status,
          reason,
          detail: DETAIL[reason],
          delivery:
            row.delivered || row.delivery_status
              ? {
                  status: row.delivered ? 'delivered' : row.delivery_status,
                  attempts: row.delivered ? row.logged_attempts : row.attempts,
                }
              : null,
          failed_clause: reason === 'filter' ? verdicts[i].failed_clause : null,
        };
      }),
    };
  }

  private reason(row: EventRoutingRow, verdict: FilterVerdict, about: string | undefined): RoutingReason {
    if (row.delivered) return 'delivered';
    if (row.delivery_status) return 'delivery';
    if (row.pending) return 'not_fanned_out_yet';
    if (row.created_after) return 'created_after_event';
    if (!row.subscribed) return 'event_not_subscribed';
    if (about === row.endpoint) return 'about_itself';
    if (!verdict.matches) return 'filter';
    if (row.endpoint_status !== 'enabled') return 'disabled';
    return 'no_delivery';
  }

  /** `POST /webhook-endpoints/:uuid/filter-test {event | event_id, filter?}` */
  async filterTest(uuid: string, body: unknown) {
    const input = readActionBody(FilterTestDto, body, 'a filter test');
    if ((input.event === undefined) === (input.event_id === undefined))
      throw ApiError.invalid(BODY_POINTER, 'Send either event (an envelope) or event_id (a stored event).');
    const endpoint = (await this.endpoints.stored(uuid)) as unknown as { filter: unknown; events: string[] };
    const filter = input.filter === undefined ? endpoint.filter : input.filter;
    if (input.filter !== undefined) {
      const problem = checkFilter({ filter: input.filter });
      if (problem) throw new ApiError(422, [problem]);
    }
    let payload: string;
    if (input.event_id !== undefined) {
      const readable = this.visibility.readableEvents() ?? null;
      const [row] = await this.store.eventRouting(RequestContext.companyUuid(), input.event_id, readable);
      if (!row)
        throw ApiError.invalid(
          attributePointer('event_id'),
          `No stored event ${input.event_id} in this company.`,
        );
      payload = row.payload;
    } else payload = JSON.stringify(input.event);
    const [verdict] = await this.filters.explain([filter ?? null], [payload]);
    const name = (JSON.parse(payload) as { event?: unknown }).event;
    return {
      ...verdict,
      subscribed: subscribes(endpoint.events, String(name)),
    };
  }
}
