/** How an endpoint authenticates the sender, as stored (sealed) and as the API shows it (no secrets). */
export type EndpointAuth =
  | { type: 'none' }
  | { type: 'basic'; username: string; password: string }
  | { type: 'bearer'; token: string }
  | {
      type: 'oauth2_client_credentials';
      token_url: string;
      client_id: string;
      client_secret: string;
      scope?: string;
      audience?: string;
    };

export const AUTH_TYPES = ['none', 'basic', 'bearer', 'oauth2_client_credentials'] as const;

/** The fields of each type that are secret: never in a response, the request log, or an error. */
export const SECRET_AUTH_FIELDS: Record<string, string[]> = {
  none: [],
  basic: ['password'],
  bearer: ['token'],
  oauth2_client_credentials: ['client_secret'],
};

/** Header values of the request log and API responses that are not shown. */
export const REDACTED = '[redacted]';

/** The auth without its secret fields (what the API shows). */
export function publicAuth(auth: EndpointAuth): Record<string, unknown> {
  const secret = SECRET_AUTH_FIELDS[auth.type] ?? [];
  return Object.fromEntries(Object.entries(auth).filter(([key]) => !secret.includes(key)));
}
