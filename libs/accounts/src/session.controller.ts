import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { PORTAL_FEATURES, PortalSessionsService } from './portal-sessions.service';
import { orNull, RequestContext } from '@wharf/core';

const SESSION = {
  type: 'object',
  properties: {
    kind: { type: 'string', enum: ['api_key', 'portal'] },
    company: {
      type: 'object',
      properties: { uuid: { type: 'string', format: 'uuid' }, name: { type: 'string' } },
      required: ['uuid', 'name'],
    },
    read_only: { type: 'boolean' },
    features: { type: 'array', items: { type: 'string', enum: [...PORTAL_FEATURES] } },
    return_url: orNull({ type: 'string' }),
    expires_at: orNull({ type: 'string', format: 'date-time' }),
  },
  required: ['kind', 'company', 'read_only', 'features', 'return_url', 'expires_at'],
};

/** `GET /int/v1/session`: who the caller is, for the console (an API key, or a portal session and its limits). */
@ApiTags('session')
@Controller('session')
export class SessionController {
  constructor(private readonly sessions: PortalSessionsService) {}

  @Get()
  @ApiOperation({
    operationId: 'getSession',
    summary: 'The caller: its company, and for a portal session whether it is read-only and what it shows',
    description: 'An API key is a full session: it may write and manage API keys; it does not expire.',
  })
  @ApiOkResponse({
    schema: { type: 'object', properties: { session: SESSION }, required: ['session'] },
  })
  async current() {
    const scope = RequestContext.current();
    if (!scope) throw new Error('No request scope: the access hook runs first');
    const name = (await this.sessions.companyName(scope.companyUuid)) ?? '';
    const company = { uuid: scope.companyUuid, name };
    if (!scope.portal)
      return {
        session: {
          kind: 'api_key',
          company,
          read_only: false,
          features: [...PORTAL_FEATURES],
          return_url: null,
          expires_at: null,
        },
      };
    const found = await this.sessions.find(scope.portal.sessionUuid, scope.companyUuid);
    return {
      session: {
        kind: 'portal',
        company,
        read_only: scope.portal.readOnly,
        features: found?.features ?? [],
        return_url: found?.return_url ?? null,
        expires_at: new Date(scope.portal.expiresAt).toISOString(),
      },
    };
  }
}
