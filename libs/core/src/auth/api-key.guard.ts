import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../http/api-error';
import { RequestContext, RequestScope } from '../tenancy/request-context';
import { AccountsService } from './accounts.service';
import { IS_PUBLIC } from './public.decorator';

export type ScopedRequest = FastifyRequest & { wharfScope?: RequestScope };

const BEARER = /^Bearer\s+(\S+)\s*$/i;

function unauthorized(detail: string): ApiError {
  const error = ApiError.of(401, detail);
  return new ApiError(401, error.errors, { 'www-authenticate': 'Bearer' });
}

/** Authenticates every route that is not @Public() with `Authorization: Bearer <api key>`. */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly accounts: AccountsService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()]))
      return true;
    const request = context.switchToHttp().getRequest<ScopedRequest>();
    const header = request.headers.authorization;
    if (!header) throw unauthorized('Send an API key: Authorization: Bearer <key>.');
    const key = BEARER.exec(header)?.[1];
    if (!key) throw unauthorized('The Authorization header must be "Bearer <key>".');
    const caller = await this.accounts.authenticate(key);
    if (!caller) throw unauthorized('The API key is malformed, unknown or revoked.');
    request.wharfScope = { companyUuid: caller.companyUuid, apiKeyUuid: caller.apiKeyUuid };
    RequestContext.enter(request.wharfScope);
    return true;
  }
}
