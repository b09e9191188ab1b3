import { Body, Controller, Delete, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  ApiError,
  ATTRIBUTES_POINTER,
  BODY_POINTER,
  RequestContext,
  KeysOnly,
  Permission,
  PermissionCatalog,
  Public,
  READ_SET,
  onlyReads,
} from '@wharf/core';
import { grantedPermissions } from './permission-input';
import { AccountsService } from './accounts.service';
import { portalSessionInput } from './portal-session.dto';
import { PortalSessionDocs } from './portal-sessions.docs';
import {
  DEFAULT_PORTAL_SECONDS,
  PORTAL_FEATURES,
  PortalSessionRecord,
  PortalSessionsService,
  portalSetCookie,
} from './portal-sessions.service';

const view = (record: PortalSessionRecord) => ({ id: record.uuid, ...record });

/**
 * Portal sessions: the platform opens a company's console in a frame of its own app, signed in as that
 * company with no API key in the browser (docs/portal.md). Made and revoked with API keys only.
 */
@ApiTags('portal-sessions')
@Controller('portal-sessions')
export class PortalSessionsController {
  constructor(
    private readonly sessions: PortalSessionsService,
    private readonly accounts: AccountsService,
    private readonly catalog: PermissionCatalog,
  ) {}

  @Post()
  @KeysOnly()
  @Permission('portal_sessions:write')
  @PortalSessionDocs.create()
  async create(@Body() body: unknown, @Req() request: FastifyRequest) {
    const input = portalSessionInput(body);
    const scope = RequestContext.current();
    if (!scope) throw new Error('No request scope: the access hook runs first');
    const company = input.company_uuid?.toLowerCase() ?? scope.companyUuid;
    if (company !== scope.companyUuid) await this.mayOpen(scope.platform, company);
    const requested = input.read_only ? READ_SET : input.permissions;
    const permissions = grantedPermissions(this.catalog, scope.grants!, requested, 'A portal session');
    const created = await this.sessions.create({
      companyUuid: company,
      createdByCompanyUuid: scope.companyUuid,
      // Shows no write button, and writes nothing but the POSTs that only read (@ReadByPost).
      readOnly: onlyReads(permissions),
      permissions,
      expiresInSeconds: input.expires_in ?? DEFAULT_PORTAL_SECONDS,
      returnUrl: input.return_url ?? null,
      features: input.features ?? [...PORTAL_FEATURES],
    });
    const url = `${request.protocol}://${request.host}/console/#portal_token=${created.token}`;
    return { portal_session: { ...view(created), url } };
  }

  /** Another company's portal: for a platform key only, and of a company that exists. */
  private async mayOpen(platform: boolean | undefined, company: string): Promise<void> {
    if (!platform)
      throw ApiError.of(
        403,
        'A company key opens a portal for its own company only; a platform key opens any company’s.',
      );
    if (!(await this.accounts.companyExists(company)))
      throw ApiError.invalid(`${ATTRIBUTES_POINTER}/company_uuid`, `No company with uuid "${company}".`);
  }

  @Post('exchange')
  @Public()
  @HttpCode(200)
  @PortalSessionDocs.exchange()
  async exchange(@Body() body: unknown, @Res({ passthrough: true }) reply: FastifyReply) {
    const token = (body as { token?: unknown } | undefined)?.token;
    if (typeof token !== 'string' || token === '')
      throw ApiError.invalid(`${BODY_POINTER}/token`, 'token is required: the portal link’s token.');
    const exchanged = await this.sessions.exchange(token);
    if (!exchanged)
      throw ApiError.of(
        401,
        'This portal link has expired, was revoked or was used already: ask for a new one.',
      );
    const seconds = (new Date(exchanged.session.expires_at).getTime() - Date.now()) / 1000;
    void reply.header('set-cookie', portalSetCookie(exchanged.cookie, seconds));
    return { portal_session: view(exchanged.session) };
  }

  @Get(':uuid')
  @KeysOnly()
  @Permission('portal_sessions:read')
  @PortalSessionDocs.find()
  async find(@Param('uuid') uuid: string) {
    const found = await this.sessions.find(uuid, RequestContext.companyUuid());
    if (!found) throw ApiError.notFound(`No portal session with uuid "${uuid}".`);
    return { portal_session: view(found) };
  }

  @Delete(':uuid')
  @KeysOnly()
  @Permission('portal_sessions:write')
  @PortalSessionDocs.revoke()
  async revoke(@Param('uuid') uuid: string) {
    const revoked = await this.sessions.revoke(uuid, RequestContext.companyUuid());
    if (!revoked) throw ApiError.notFound(`No portal session with uuid "${uuid}".`);
    return { portal_session: view(revoked) };
  }
}
