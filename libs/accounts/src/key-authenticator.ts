import { AccountsService, Caller } from './accounts.service';
import { PortalPrincipal, PortalSessionsService } from './portal-sessions.service';
import type { Authenticator, PermissionCatalog, RequestScope } from '@wharf/core';

/**
 * The kernel's Authenticator over this module's tables: API keys and portal sessions. A caller's scope,
 * its permissions compiled, is made once per cached lookup (the services hand out the same caller while
 * it is cached), so a request spends no query and no compiling on its permissions.
 */
export class KeyAuthenticator implements Authenticator {
  private readonly keys = new WeakMap<Caller, RequestScope>();
  private readonly sessions = new WeakMap<PortalPrincipal, RequestScope>();

  constructor(
    private readonly accounts: AccountsService,
    private readonly portals: PortalSessionsService,
    private readonly catalog: PermissionCatalog,
  ) {}

  /** Answered at once, without a promise, while the key is cached (see Authenticator.byApiKey). */
  byApiKey(key: string): RequestScope | undefined | Promise<RequestScope | undefined> {
    const cached = this.accounts.cachedCaller(key);
    if (cached) return this.scopeOf(cached);
    return this.accounts.authenticate(key).then((caller) => caller && this.scopeOf(caller));
  }

  private scopeOf(caller: Caller): RequestScope {
    return once(this.keys, caller, () => ({
      companyUuid: caller.companyUuid,
      apiKeyUuid: caller.apiKeyUuid,
      platform: caller.platform,
      grants: this.catalog.grants(caller.permissions),
    }));
  }

  async byPortalCookie(cookie: string): Promise<RequestScope | undefined> {
    const session = await this.portals.authenticate(cookie);
    if (!session) return undefined;
    return once(this.sessions, session, () => ({
      companyUuid: session.companyUuid,
      grants: this.catalog.grants(session.permissions),
      portal: { sessionUuid: session.sessionUuid, readOnly: session.readOnly, expiresAt: session.expiresAt },
    }));
  }
}

/** The scope made for a cached credential object, made at its first use. */
function once<K extends object>(
  made: WeakMap<K, RequestScope>,
  key: K,
  make: () => RequestScope,
): RequestScope {
  let scope = made.get(key);
  if (!scope) made.set(key, (scope = make()));
  return scope;
}
