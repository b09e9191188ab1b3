import type { RequestScope } from '../tenancy/request-context';

/** The portal session's cookie: the console's credential inside the platform's app. */
export const PORTAL_COOKIE = 'wharf_portal';

/**
 * How the request pipeline learns who is calling. The accounts module provides it under AUTHENTICATOR, so
 * the kernel reads no account table and management code depends on the kernel, never the other way.
 */
export interface Authenticator {
  /**
   * The scope of an API key, or undefined when it is malformed, unknown or revoked: answered at once (no
   * promise) when the key is cached, so an authenticated request goes on without waiting a turn.
   */
  byApiKey(key: string): RequestScope | undefined | Promise<RequestScope | undefined>;
  /** The scope of a portal session's cookie value (its `portal` set), or undefined. */
  byPortalCookie(cookie: string): Promise<RequestScope | undefined>;
}

export const AUTHENTICATOR = Symbol.for('wharf:authenticator');

/** The portal cookie's value in a Cookie header, if any. */
export function portalCookie(header: string | undefined): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === PORTAL_COOKIE) return part.slice(eq + 1).trim();
  }
  return undefined;
}
