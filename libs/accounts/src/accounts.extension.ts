import { getDataSourceToken } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AccountsService } from './accounts.service';
import { ApiKey } from './api-key.entity';
import { ApiKeysController } from './api-keys.controller';
import { Company } from './company.entity';
import { CreateCompaniesAndApiKeys1700000000000 } from './migrations/1700000000000-create-companies-and-api-keys';
import { CreatePortalSessions1700000000006 } from './migrations/1700000000006-create-portal-sessions';
import { NotifyApiKeyChanges1700000000008 } from './migrations/1700000000008-notify-api-key-changes';
import { AddPermissions1796185991606 } from './migrations/1796185991606-add-permissions';
import { ApiKeyRevocations } from './api-key-revocations';
import { PortalSession } from './portal-session.entity';
import { PortalSessionsController } from './portal-sessions.controller';
import { PortalSessionsService } from './portal-sessions.service';
import { KeyAuthenticator } from './key-authenticator';
import { SessionController } from './session.controller';
import { APP_CONFIG, AUTHENTICATOR, AppConfig, Extension, PermissionCatalog } from '@wharf/core';

/**
 * Companies, their API keys and portal sessions, with the routes that manage them (`/int/v1/api-keys`,
 * `/int/v1/portal-sessions`, `/int/v1/session`). It provides the kernel's AUTHENTICATOR, which every
 * authenticated route's request goes through.
 */
@Extension({
  name: 'accounts',
  namespace: 'int/v1',
  entities: [Company, ApiKey, PortalSession],
  migrations: [
    CreateCompaniesAndApiKeys1700000000000,
    CreatePortalSessions1700000000006,
    NotifyApiKeyChanges1700000000008,
    AddPermissions1796185991606,
  ],
  controllers: [ApiKeysController, PortalSessionsController, SessionController],
  permissions: [
    { name: 'api_keys:read', description: 'List the company’s API keys (never the keys themselves)' },
    {
      name: 'api_keys:write',
      description: 'Create and revoke API keys, with no permission the creating key lacks',
    },
    { name: 'portal_sessions:read', description: 'Read portal sessions (never their links)' },
    {
      name: 'portal_sessions:write',
      description: 'Open and revoke portal sessions, with no permission the creating key lacks',
    },
  ],
  providers: [
    {
      provide: AccountsService,
      useFactory: (dataSource: DataSource, config: AppConfig) =>
        new AccountsService(dataSource, new ApiKeyRevocations(config.databaseUrl)),
      inject: [getDataSourceToken(), APP_CONFIG],
    },
    {
      provide: PortalSessionsService,
      useFactory: (dataSource: DataSource) => new PortalSessionsService(dataSource),
      inject: [getDataSourceToken()],
    },
    {
      provide: AUTHENTICATOR,
      useFactory: (accounts: AccountsService, portals: PortalSessionsService, catalog: PermissionCatalog) =>
        new KeyAuthenticator(accounts, portals, catalog),
      inject: [AccountsService, PortalSessionsService, PermissionCatalog],
    },
  ],
  exports: [AccountsService, PortalSessionsService, AUTHENTICATOR],
})
export class AccountsExtension {}
