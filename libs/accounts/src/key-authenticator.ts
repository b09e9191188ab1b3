import { AccountsService } from './accounts.service';
import { PortalSessionsService } from './portal-sessions.service';
import type { Authenticator, RequestScope } from '@wharf/core';

/** The kernel's Authenticator over this module's tables: API keys and portal sessions. */
export class KeyAuthenticator implements Authenticator {
  constructor(
    private readonly accounts: AccountsService,
    private readonly portals: PortalSessionsService,
  ) {}

  async byApiKey(key: string): Promise<RequestScope | undefined> {
    const caller = await this.accounts.authenticate(key);
    return (
      caller && { companyUuid: caller.companyUuid, apiKeyUuid: caller.apiKeyUuid, platform: caller.platform }
    );
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
