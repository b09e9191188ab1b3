import { Global, Module } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { AccountsService } from './accounts.service';
import { ApiKeyRevocations } from './api-key-revocations';
import { PortalSessionsService } from './portal-sessions.service';
import { RateLimiter } from './rate-limiter';

/**
 * Every route is authenticated unless @Public(), rate limited per key, and runs in its company's scope
 * (RequestContext): see configureAccess, which the api calls.
 */
@Global()
@Module({
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
    RateLimiter,
  ],
  exports: [AccountsService, PortalSessionsService, RateLimiter],
})
export class AuthModule {}
