/** One error of a failed API call: its detail, and the JSON pointer into the body it is about. */
export interface ApiProblem {
  detail: string;
  pointer?: string;
}

/** A failed API call: `detail` is the API's own explanation, shown to the user as-is. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly errors: ApiProblem[] = [],
  ) {
    super(detail);
  }
}

const KEY = 'wharf.apiKey';
/** Set once a portal link was exchanged in this tab: the session itself is an HttpOnly cookie no script reads. */
const PORTAL = 'wharf.portal';

/** Who the console is signed in as (GET /int/v1/session). */
export interface SessionInfo {
  kind: 'api_key' | 'portal';
  company: { uuid: string; name: string };
  read_only: boolean;
  features: string[];
  /** As held: names and wildcards. */
  permissions: string[];
  /** Every permission of the catalog it holds. */
  granted: string[];
  return_url: string | null;
  expires_at: string | null;
}

/** GET /permissions */
export interface PermissionEntry {
  name: string;
  description: string;
  extension: string;
}

let info: SessionInfo | null = null;

/**
 * The tab's sessionStorage, or memory where the browser denies storage to a frame of another site (a
 * third-party frame with third-party storage blocked): the portal then lasts as long as the page.
 */
const memory = new Map<string, string>();
const tabStore = {
  get(key: string): string | null {
    try {
      return sessionStorage.getItem(key);
    } catch {
      return memory.get(key) ?? null;
    }
  },
  set(key: string, value: string): void {
    try {
      sessionStorage.setItem(key, value);
    } catch {
      memory.set(key, value);
    }
  },
  remove(key: string): void {
    try {
      sessionStorage.removeItem(key);
    } catch {
      // Denied: only memory holds it.
    }
    memory.delete(key);
  },
};

/**
 * The tab's session: an API key typed in (kept in sessionStorage for this tab), or a portal session (its
 * cookie; only a flag is kept, never the link's token).
 */
export const session = {
  key: () => tabStore.get(KEY),
  portal: () => tabStore.get(PORTAL) === '1',
  signedIn: () => Boolean(tabStore.get(KEY)) || tabStore.get(PORTAL) === '1',
  signIn: (key: string) => tabStore.set(KEY, key.trim()),
  signInPortal: () => {
    tabStore.remove(KEY);
    tabStore.set(PORTAL, '1');
  },
  signOut: () => {
    tabStore.remove(KEY);
    tabStore.remove(PORTAL);
    info = null;
  },
  info: () => info,
  setInfo: (value: SessionInfo | null) => (info = value),
  /** Whether the session holds a permission: the console shows only what it may do. */
  can: (permission: string) => !info || info.granted.includes(permission),
  /** Whether the buttons that change endpoints are shown. */
  canWrite: () => !info?.read_only && session.can('webhooks.endpoints:write'),
  has: (feature: string) => info?.features.includes(feature) ?? true,
};

/** What every call to the api sends: the key, or (with the portal cookie) the header writes need. */
export function authHeaders(): Record<string, string> {
  const key = session.key();
  return key ? { authorization: `Bearer ${key}` } : { 'x-wharf-portal': '1' };
}

/** Listeners told when the api answers 401: the key or the portal session is no longer valid. */
const signedOut = new Set<() => void>();
export const onSignedOut = (listener: () => void) => {
  signedOut.add(listener);
  return () => void signedOut.delete(listener);
};
export const notifySignedOut = () => {
  for (const listener of signedOut) listener();
};

/** Calls the management API with the signed-in key or portal session; errors carry the API's `detail` text. */
export async function api<T = any>(method: string, path: string, body?: unknown): Promise<T> {
  const headers = authHeaders();
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(`/int/v1${path}`, {
      method,
      headers,
      credentials: 'same-origin',
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiFailure(0, 'The API cannot be reached. Is the server running?');
  }
  const text = await response.text();
  const json = text ? safeJson(text) : undefined;
  if (!response.ok) {
    const errors = (json as { errors?: { detail?: string; source?: { pointer?: string } }[] } | undefined)
      ?.errors;
    const detail =
      errors
        ?.map((e) => e.detail)
        .filter(Boolean)
        .join(' ') || `The API answered ${response.status}.`;
    const problems = (errors ?? []).map((e) => ({ detail: e.detail ?? '', pointer: e.source?.pointer }));
    // A used link's 401 says nothing of the session its tab may still hold.
    if (response.status === 401 && session.portal() && path !== '/portal-sessions/exchange')
      notifySignedOut();
    throw new ApiFailure(response.status, detail, problems);
  }
  return json as T;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function query(params: Record<string, string | number | boolean | undefined>): string {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') search.set(k, String(v));
  const text = search.toString();
  return text ? `?${text}` : '';
}

export interface Endpoint {
  uuid: string;
  url: string;
  description: string | null;
  events: string[];
  status: 'enabled' | 'disabled';
  disabled_reason: string | null;
  disabled_at: string | null;
  verified_at: string | null;
  created_at: string;
  secret?: string;
  max_in_flight: number;
  rate_limit_per_second: number | null;
  ordering: 'none' | 'entity';
  /** `thin`: deliveries carry a reference to the record (its href) instead of the record. */
  payload: 'full' | 'thin';
  throttled: boolean;
  throttled_reason: string | null;
  /** The payload filter (MongoDB-style JSON), or null: every subscribed event. */
  filter: Record<string, unknown> | null;
  /** Static header names, values redacted. */
  headers: Record<string, string> | null;
  /** The auth's type and non-secret fields, or null for none. */
  auth: EndpointAuth | null;
  /** Where deliveries go: `http`, or a broker type of GET /destination-types. */
  type: string;
  /** A broker type's config, secret fields "[redacted]"; null for http. */
  config: Record<string, unknown> | null;
}

/** A field of a destination type's config, as its JSON Schema describes it. */
export interface ConfigField {
  type?: string;
  description?: string;
  examples?: unknown[];
  writeOnly?: boolean;
  minimum?: number;
}

/** GET /destination-types */
export interface DestinationType {
  name: string;
  description: string;
  config_schema: { properties?: Record<string, ConfigField>; required?: string[] };
}

/** A request-log row of a broker endpoint: its url is the target, not an http(s) URL. */
export function isPublished(log: { url: string }): boolean {
  return !/^https?:\/\//.test(log.url);
}

export type EndpointAuth =
  | { type: 'none' }
  | { type: 'basic'; username: string }
  | { type: 'bearer' }
  | {
      type: 'oauth2_client_credentials';
      token_url: string;
      client_id: string;
      scope?: string;
      audience?: string;
    };

/** GET /webhook-endpoints/:uuid/queue */
export interface EndpointQueue {
  in_flight: number;
  waiting: number;
  retrying: number;
  max_in_flight: number;
  throttled: boolean;
  throttled_reason: string | null;
}

export interface RequestLog {
  uuid: string;
  webhook_endpoint_uuid: string;
  event_id: string;
  event: string;
  attempt: number;
  test: boolean;
  url: string;
  request_headers: Record<string, string>;
  request_body: string;
  response_status: number | null;
  response_headers: Record<string, string> | null;
  response_body: string | null;
  duration_ms: number;
  error: string | null;
  status: 'successful' | 'failed';
  sent_at: string;
}

export interface CatalogEvent {
  name: string;
  resource: string;
  description: string;
  example?: unknown;
  schema?: unknown;
}

/** GET /webhook-activity */
export interface ActivityBucket {
  at: string;
  successful: number;
  failed: number;
  retrying: number;
}
export interface Activity {
  interval: 'hour' | 'minute';
  from: string;
  to: string;
  webhook_endpoint_uuid: string | null;
  buckets: ActivityBucket[];
  totals: Omit<ActivityBucket, 'at'>;
  max_attempts: number;
}

export interface ApiKeyRow {
  uuid: string;
  name: string | null;
  prefix: string;
  last_four: string;
  permissions: string[];
  last_used_at: string | null;
  revoked_at: string | null;
  created_at: string;
  key?: string;
}

/** Pulls a single record out of a response whatever its root key (`{"webhook_endpoint": {...}}` or flat). */
export function unwrap<T>(body: unknown, key: string): T {
  const record = body as Record<string, unknown>;
  return (record && typeof record === 'object' && key in record ? record[key] : record) as T;
}
