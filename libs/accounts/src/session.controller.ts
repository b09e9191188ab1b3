import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { PORTAL_FEATURES, PortalSessionsService } from './portal-sessions.service';
import { PermissionCatalog, RequestContext, SignedIn, onlyReads, orNull } from '@wharf/core';

const NAMES = { type: 'array', items: { type: 'string' } };
const SESSION = {
  type: 'object',
  properties: {
    kind: { type: 'string', enum: ['api_key', 'portal'] },
    company: {
      type: 'object',
      properties: { uuid: { type: 'string', format: 'uuid' }, name: { type: 'string' } },
      required: ['uuid', 'name'],
    },
    read_only: { type: 'boolean', description: 'Whether every permission it holds only reads.' },
    features: { type: 'array', items: { type: 'string', enum: [...PORTAL_FEATURES] } },
    permissions: { ...NAMES, description: 'As held: names and wildcards (`["*"]`: every permission).' },
    granted: {
      ...NAMES,
      description: 'Every permission of GET /int/v1/permissions it holds, wildcards spelled out.',
    },
    return_url: orNull({ type: 'string' }),
    expires_at: orNull({ type: 'string', format: 'date-time' }),
  },
  required: [
    'kind',
    'company',
    'read_only',
    'features',
    'permissions',
    'granted',
    'return_url',
    'expires_at',
  ],
};

/** `GET /int/v1/session`: who the caller is, for the console (an API key, or a portal session and its limits). */
@ApiTags('session')
@Controller('session')
export class SessionController {
  constructor(
    private readonly sessions: PortalSessionsService,
    private readonly catalog: PermissionCatalog,
  ) {}

  @Get()
  @SignedIn()
  @ApiOperation({
    operationId: 'getSession',
    summary: 'The caller: its company, its permissions, and for a portal session what it shows',
    description:
      'What the console shows and hides: `granted` lists every permission the API key or portal session holds. ' +
      'An API key does not expire.',
  })
  @ApiOkResponse({
    schema: { type: 'object', properties: { session: SESSION }, required: ['session'] },
  })
  async current() {
    const scope = RequestContext.current();
    if (!scope?.grants) throw new Error('No request scope: the access hook runs first');
    const name = (await this.sessions.companyName(scope.companyUuid)) ?? '';
    const company = { uuid: scope.companyUuid, name };
    const grants = scope.grants;
    const granted = grants.all ? this.catalog.names : this.catalog.names.filter((name) => grants.has(name));
    const permissions = {
      // The rule a portal session's read_only was stored by (portal-sessions.controller.ts).
      read_only: onlyReads(grants.patterns),
      permissions: [...grants.patterns],
      granted,
    };
    if (!scope.portal)
      return {
        session: {
          kind: 'api_key',
          company,
          ...permissions,
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
        ...permissions,
        features: found?.features ?? [],
        return_url: found?.return_url ?? null,
        expires_at: new Date(scope.portal.expiresAt).toISOString(),
      },
    };
  }
}
