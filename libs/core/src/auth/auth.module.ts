import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { getDataSourceToken } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AccountsService } from './accounts.service';
import { ApiKeyGuard } from './api-key.guard';
import { RateLimitGuard } from './rate-limit.guard';

/** Every route is authenticated unless @Public(), rate limited per key, and runs in its company's scope (RequestContext). */
@Global()
@Module({
  providers: [
    {
      provide: AccountsService,
      useFactory: (dataSource: DataSource) => new AccountsService(dataSource),
      inject: [getDataSourceToken()],
    },
    { provide: APP_GUARD, useClass: ApiKeyGuard },
    { provide: APP_GUARD, useClass: RateLimitGuard },
  ],
  exports: [AccountsService],
})
export class AuthModule {}
