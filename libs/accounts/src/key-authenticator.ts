import { AccountsService } from './accounts.service';
import { PortalSessionsService } from './portal-sessions.service';
import type { Authenticator, RequestScope } from '@wharf/core';

/** The kernel's Authenticator over this module's tables: API keys and portal sessions. */
export class KeyAuthenticator implements Authenticator {
  constructor(
    private readonly accounts: AccountsService,
    private readonly portals: PortalSessionsService,
  ) {}

  /** A Caller is a RequestScope: the cached one is handed on as it is, shared by the key's requests. */
  byApiKey(key: string): RequestScope | undefined | Promise<RequestScope | undefined> {
    return this.accounts.cachedCaller(key) ?? this.accounts.authenticate(key);
  }

  async byPortalCookie(cookie: string): Promise<RequestScope | undefined> {
    const session = await this.portals.authenticate(cookie);
    return (
      session && {
        companyUuid: session.companyUuid,
        portal: {
          sessionUuid: session.sessionUuid,
          readOnly: session.readOnly,
          expiresAt: session.expiresAt,
        },
      }
    );
  }
}
