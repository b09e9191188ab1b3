import { EndpointAuth } from './endpoint-auth';

/**
 * Where a delivery goes. The dispatch stage hands each attempt to a Destination and records what it
 * answers. DESTINATION is the DestinationRouter (destinations/), which sends by the endpoint's type: HTTP
 * (signed POSTs, http.destination.ts) or a broker (destinations/*.destination.ts).
 */

/** What one attempt sent and got back: a request-log row in the making. */
export interface Attempt {
  url: string;
  request_headers: Record<string, string>;
  request_body: string;
  response_status: number | null;
  response_headers: Record<string, string> | null;
  response_body: string | null;
  duration_ms: number;
  error: string | null;
  status: 'successful' | 'failed';
  sent_at: Date;
  /** Retry-After of a 429/503, in ms. */
  retryAfterMs?: number;
  /** Not worth retrying: blocked target or 410 Gone. */
  permanent: boolean;
}

/** An endpoint as a destination sees it. */
export interface DestinationEndpoint {
  uuid: string;
  url: string;
  /** Its destination type: `http` (also when absent) or a broker's (destinations/destination-types.ts). */
  type?: string;
  /** A broker type's config, credentials decrypted. */
  config?: Record<string, unknown>;
  /** Secrets valid right now, newest first. */
  secrets: string[];
  /** Set when no configured key opens the endpoint's secret: nothing can be signed, so nothing is sent. */
  unreadableSecret?: string;
  /** Static headers sent with every delivery (values decrypted). */
  headers?: Record<string, string>;
  auth?: EndpointAuth;
}

/** One message to send: the event's id (the idempotency key receivers see), its name and its exact bytes. */
export interface Message {
  eventId: string;
  event: string;
  body: string;
  /** The attempt's W3C `traceparent`, sent only to an endpoint that opted in (`propagate_trace`). */
  traceparent?: string;
}

export interface Destination {
  /** Readies the transport before the worker takes its first job (so its first sends are not held back). */
  prepare(): Promise<void>;
  /** Sends one attempt and reports what happened; never throws for a failed send. */
  send(endpoint: DestinationEndpoint, message: Message): Promise<Attempt>;
  /** Cuts every send in flight (a shutdown that stopped waiting for them). */
  abort(): Promise<void>;
}

/** The injection token of the worker's Destination. */
export const DESTINATION = Symbol('Destination');
