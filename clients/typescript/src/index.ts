import createClient, { Client, ClientOptions } from 'openapi-fetch';
import { Webhook } from 'standardwebhooks';
import type { paths } from './generated/api';
import type { WebhookEvent, WebhookEventName } from './generated/events';

export type { components, operations, paths, Permission, PermissionPattern } from './generated/api';
export { PERMISSIONS } from './generated/api';
export * from './generated/events';
export * from './generated/destinations';

export interface WharfClientOptions extends ClientOptions {
  /** Where the api is served, e.g. `https://wharf.example.com`. */
  baseUrl: string;
  /** An API key of your company; sent as `Authorization: Bearer <key>`. */
  apiKey: string;
}

/** The events API's filters (`cursor` is the iterator's business). */
export type EventsQuery = Omit<NonNullable<paths['/int/v1/events']['get']['parameters']['query']>, 'cursor'>;
type EventsPage = paths['/int/v1/events']['get']['responses'][200]['content']['application/json'];
/** One event as `GET /int/v1/events` lists it: its full envelope. */
export type StoredEvent = EventsPage['events'][number];

/** An answer of the api that was not a success: its status and JSON:API errors. */
export class WharfApiError extends Error {
  constructor(
    readonly status: number,
    readonly errors: unknown,
  ) {
    super(`The api answered ${status}: ${JSON.stringify(errors)}`);
  }
}

export type WharfClient = Client<paths> & {
  events: {
    /**
     * Every event matching `query`, newest first, fetched a page at a time as the loop asks for more
     * (`meta.next_cursor`): `for await (const event of client.events.list({ delivery_success: 'false' }))`.
     */
    list(query?: EventsQuery): AsyncIterableIterator<StoredEvent>;
  };
};

/**
 * A typed client of every route of the api (openapi-fetch over the generated `paths`):
 * `client.GET('/inventory/int/v1/warehouses', { params: { query: { limit: 10, filters: { name_like: 'dock' } } } })`.
 */
export function createWharfClient({ apiKey, headers, ...options }: WharfClientOptions): WharfClient {
  const client = createClient<paths>({
    // The list grammar's operators are plain parameters (`name_like=dock`), not `filters[name_like]`.
    querySerializer: { array: { style: 'form', explode: false }, object: { style: 'form', explode: true } },
    ...options,
    headers: { ...(headers as Record<string, string> | undefined), authorization: `Bearer ${apiKey}` },
  });
  return Object.assign(client, { events: { list: (query: EventsQuery = {}) => eventPages(client, query) } });
}

async function* eventPages(client: Client<paths>, query: EventsQuery): AsyncIterableIterator<StoredEvent> {
  let cursor: string | undefined;
  do {
    const { data, error, response } = await client.GET('/int/v1/events', {
      params: { query: { ...query, ...(cursor ? { cursor } : {}) } },
    });
    if (!data) throw new WharfApiError(response.status, (error as { errors?: unknown } | undefined)?.errors);
    yield* data.events;
    cursor = data.meta.next_cursor ?? undefined;
  } while (cursor);
}

/** Request headers as Node (`req.headers`) or fetch (`request.headers`) give them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

const SIGNED_HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature'];

function signedHeaders(headers: WebhookHeaders): Record<string, string> {
  const read = (name: string): string | undefined => {
    if (headers instanceof Headers) return headers.get(name) ?? undefined;
    const value = headers[name] ?? headers[name.toLowerCase()];
    return Array.isArray(value) ? value.join(' ') : value;
  };
  return Object.fromEntries(SIGNED_HEADERS.map((name) => [name, read(name) ?? '']));
}

/**
 * Verifies a delivery (Standard Webhooks: signature over `<id>.<timestamp>.<raw body>` with the endpoint's
 * `whsec_…` secret, timestamp within 5 minutes) and returns the typed event; throws
 * `WebhookVerificationError` otherwise. Pass the raw body exactly as received, never re-serialised JSON.
 */
export function verifyWebhook(secret: string, headers: WebhookHeaders, body: string | Buffer): WebhookEvent {
  return new Webhook(secret).verify(body, signedHeaders(headers)) as WebhookEvent;
}

/**
 * What an endpoint with `payload: "thin"` receives instead of the record: a reference to it (`href`, its
 * GET route, to read with your own API key) and, for an update, the names of the fields that changed.
 * Operational events (`endpoint.*`, `delivery.*`) are about no record and arrive in full even there.
 */
export interface ThinWebhookEvent<N extends WebhookEventName = WebhookEventName> {
  id: string;
  api_version: WebhookEvent<N>['api_version'];
  event: N;
  created_at: string;
  data: {
    id: string;
    /** The resource's singular key, e.g. `warehouse`. */
    object: string;
    href: string;
    additionalData: { changes?: string[] };
  };
}

/** Whether a delivery to a thin endpoint is a thin event (not an operational event, sent in full). */
export function isThinEvent(event: ThinWebhookEvent | WebhookEvent): event is ThinWebhookEvent {
  const data = event.data as { href?: unknown; object?: unknown };
  return typeof data.href === 'string' && typeof data.object === 'string';
}

/**
 * verifyWebhook for a delivery to an endpoint with `payload: "thin"`: a thin event, or an operational event
 * in full; tell them apart with isThinEvent.
 */
export function verifyThinWebhook(
  secret: string,
  headers: WebhookHeaders,
  body: string | Buffer,
): ThinWebhookEvent | WebhookEvent {
  return new Webhook(secret).verify(body, signedHeaders(headers)) as ThinWebhookEvent | WebhookEvent;
}

export { WebhookVerificationError } from 'standardwebhooks';
