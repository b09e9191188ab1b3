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
    let scope = this.keys.get(caller);
    if (!scope) {
      scope = {
        companyUuid: caller.companyUuid,
        apiKeyUuid: caller.apiKeyUuid,
        platform: caller.platform,
        grants: this.catalog.grants(caller.permissions),
      };
      this.keys.set(caller, scope);
    }
    return scope;
  }

  async byPortalCookie(cookie: string): Promise<RequestScope | undefined> {
    const session = await this.portals.authenticate(cookie);
    if (!session) return undefined;
    let scope = this.sessions.get(session);
    if (!scope) {
      scope = {
        companyUuid: session.companyUuid,
        grants: this.catalog.grants(session.permissions),
        portal: {
          sessionUuid: session.sessionUuid,
          readOnly: session.readOnly,
          expiresAt: session.expiresAt,
        },
      };
      this.sessions.set(session, scope);
    }
    return scope;
  }
}
