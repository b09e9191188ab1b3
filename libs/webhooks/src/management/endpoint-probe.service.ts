import { randomBytes, randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { ApiError, RequestContext, ResourceServices, attributePointer } from '@wharf/core';
import { Attempt, DestinationEndpoint } from '../transport/destination';
import { DestinationRouter } from '../destinations/destination-router';
import { HTTP_TYPE } from '../destinations/destination-types';
import { WebhookEndpointsService } from '../endpoints/webhook-endpoints.service';
import { newEventId } from '../outbox/event-id';
import { WebhookRequestLog } from '../request-logs/webhook-request-log.entity';
import { RequestLogStore, TestEvent } from '../store/request-logs.store';
import { TriggerEventDto } from './listen-session.dto';
import { readActionBody } from './action-body';
import { TestEventDto } from './test-event.dto';
import { WebhookEventCatalog } from '../events/webhook-event-catalog.service';

const DEFAULT_TEST_EVENT = 'order.updated';
const SHOWN_BODY = 200;

/** Why an answer to the ownership challenge does not prove ownership, or undefined when it does. */
export function challengeProblem(attempt: Attempt, challenge: string): string | undefined {
  if (attempt.error) return `the endpoint could not be reached (${attempt.error})`;
  const status = attempt.response_status ?? 0;
  if (status < 200 || status > 299) return `the endpoint answered ${status}, not 2xx`;
  const body = (attempt.response_body ?? '').trim();
  if (body === challenge) return undefined;
  try {
    const parsed: unknown = JSON.parse(body);
    if (parsed === challenge) return undefined;
    if ((parsed as { challenge?: unknown })?.challenge === challenge) return undefined;
  } catch {
    // not JSON: compared as text above
  }
  const shown = body.length > SHOWN_BODY ? `${body.slice(0, SHOWN_BODY)}…` : body;
  return `the endpoint answered ${status} with ${body ? `the body ${JSON.stringify(shown)}` : 'an empty body'} instead of the challenge`;
}

/**
 * Sends to an endpoint right now, outside the delivery queue and whatever its status (that is how users
 * debug): a test event, logged with `test: true`, and the ownership challenge. Both go as a delivery goes,
 * with the endpoint's headers and auth, so a receiver behind a gateway answers them too.
 */
@Injectable()
export class EndpointProbeService {
  constructor(
    private readonly endpoints: WebhookEndpointsService,
    private readonly services: ResourceServices,
    private readonly destination: DestinationRouter,
    private readonly catalog: WebhookEventCatalog,
    private readonly logs: RequestLogStore,
  ) {}

  /** `POST …/test {event?, data?}`: signed like any delivery; returns the request-log row. */
  async sendTest(uuid: string, body: unknown) {
    const request = readActionBody(TestEventDto, body, 'a test event');
    const event = request.event ?? DEFAULT_TEST_EVENT;
    if (request.event !== undefined && !this.catalog.has(event)) {
      throw ApiError.invalid(
        attributePointer('event'),
        `"${event}" is not an event this platform emits: use a name from GET /int/v1/webhook-events.`,
      );
    }
    const endpoint = await this.endpoints.destinationOf(uuid);
    const sent = await this.testEvent(event, request.data ?? this.exampleData(request.event));
    // The single request-log row of a test send, as the request-log routes serve it.
    return this.services.for(WebhookRequestLog).find(await this.sendLogged(endpoint, sent));
  }

  /**
   * `POST /webhook-events/:event/trigger {data?}` (`wharf trigger`): one test event of that name (the
   * catalog's example, or `data`) sent now, as a test send, to every enabled endpoint of the company that it
   * would be fanned out to (listen sessions included): subscribed to it and matching its filter. Returns the
   * event's id and one request-log row per endpoint.
   */
  async trigger(event: string, body: unknown) {
    if (!this.catalog.has(event))
      throw ApiError.notFound(
        `"${event}" is not an event this platform emits: see GET /int/v1/webhook-events.`,
      );
    const request = readActionBody(TriggerEventDto, body, 'a trigger');
    const sent = await this.testEvent(event, request.data ?? this.exampleData(event));
    const receivers = await this.logs.receiversOf(RequestContext.companyUuid(), sent);
    const logs = await Promise.all(
      receivers.map(async (uuid) => this.sendLogged(await this.endpoints.destinationOf(uuid), sent)),
    );
    // The rows as the request-log routes serve them, a page (at most 100) at a time.
    const rows: unknown[] = [];
    for (let i = 0; i < logs.length; i += 100) {
      const page = logs.slice(i, i + 100);
      const listed = await this.services
        .for(WebhookRequestLog)
        .list({ uuid_in: page.join(','), limit: String(page.length) });
      rows.push(...(listed.webhook_request_logs as unknown[]));
    }
    return { webhook_trigger: { event, event_id: sent.id, webhook_request_logs: rows } };
  }

  /** A test event's envelope around `data` (its `additionalData` apart). */
  private testEvent(event: string, data: Record<string, unknown>): Promise<TestEvent> {
    const { additionalData, ...attributes } = data;
    // `data.id`: the record's id, else its uuid, else a made-up one.
    const record = { id: attributes.id ?? attributes.uuid ?? randomUUID(), ...attributes };
    return this.logs.testEvent(event, record, (additionalData as Record<string, unknown> | undefined) ?? {});
  }

  /** Sends a test event to one endpoint and logs the attempt (`test: true`); the log row's uuid. */
  private async sendLogged(endpoint: DestinationEndpoint, sent: TestEvent): Promise<string> {
    const attempt = await this.destination.send(endpoint, {
      eventId: sent.id,
      event: sent.name,
      body: sent.body,
    });
    return this.logs.logTestSend(RequestContext.companyUuid(), endpoint.uuid, sent, attempt);
  }

  /** `POST …/verify`: a signed challenge the endpoint must echo; success sets `verified_at`. */
  async verify(uuid: string) {
    const endpoint = await this.endpoints.destinationOf(uuid);
    if (endpoint.type !== HTTP_TYPE)
      throw ApiError.of(
        422,
        `A ${endpoint.type} endpoint has no ownership challenge: only an http receiver answers one.`,
        {
          source: { pointer: attributePointer('type') },
        },
      );
    const challenge = randomBytes(24).toString('base64url');
    const body = JSON.stringify({ type: 'webhook.verification', challenge });
    const attempt = await this.destination.send(endpoint, {
      eventId: newEventId(),
      event: 'webhook.verification',
      body,
    });
    const problem = challengeProblem(attempt, challenge);
    if (problem) {
      throw ApiError.of(
        422,
        `Ownership not verified: ${problem}. Answer the POST {"type": "webhook.verification", "challenge": …} ` +
          'with a 2xx whose body is the challenge string or {"challenge": "<the challenge>"}.',
        {
          source: { pointer: attributePointer('url') },
          meta: {
            response_status: attempt.response_status,
            response_body: attempt.response_body?.slice(0, 1024) ?? null,
            error: attempt.error,
          },
        },
      );
    }
    return this.endpoints.markVerified(uuid);
  }

  /** The default test payload is an `order.updated` with `data {id, status}`. */
  private exampleData(event: string | undefined): Record<string, unknown> {
    return event === undefined
      ? { id: randomUUID(), status: 'dispatched' }
      : { ...this.catalog.get(event)!.example.data };
  }
}
