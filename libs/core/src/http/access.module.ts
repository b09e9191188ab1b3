import { Global, Module } from '@nestjs/common';
import { RateLimiter } from './rate-limiter';

/**
 * Every route is authenticated unless @Public() (through the AUTHENTICATOR the accounts module provides),
 * rate limited per key, and runs in its company's scope: see configureAccess, which the api calls.
 */
@Global()
@Module({ providers: [RateLimiter], exports: [RateLimiter] })
export class AccessModule {}
