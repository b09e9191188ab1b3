import { Body, Controller, Delete, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsUUID,
  IsUrl,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AccountsService } from './accounts.service';
import {
  DEFAULT_PORTAL_SECONDS,
  MAX_PORTAL_SECONDS,
  PORTAL_FEATURES,
  PortalSessionRecord,
  PortalSessionsService,
  portalSetCookie,
} from './portal-sessions.service';
import {
  ApiError,
  ATTRIBUTES_POINTER,
  BODY_POINTER,
  dtoSchema,
  orNull,
  ApiErrors,
  ApiUuidParam,
  validateDto,
  RequestContext,
  KeysOnly,
  Public,
} from '@wharf/core';

class PortalSessionDto {
  @IsOptional()
  @IsUUID()
  company_uuid?: string;

  @IsOptional()
  @IsBoolean()
  read_only?: boolean;

  @IsOptional()
  @IsInt()
  @Min(60)
  @Max(MAX_PORTAL_SECONDS)
  expires_in?: number;

  @IsOptional()
  @IsUrl({ protocols: ['http', 'https'], require_protocol: true, require_tld: false })
  @MaxLength(2048)
  return_url?: string;

  @IsOptional()
  @IsArray()
  @ArrayUnique()
  @IsIn(PORTAL_FEATURES, { each: true })
  features?: string[];
}

const RECORD = {
  type: 'object',
  properties: {
    id: { type: 'string', format: 'uuid' },
    uuid: { type: 'string', format: 'uuid' },
    company_uuid: { type: 'string', format: 'uuid' },
    read_only: { type: 'boolean' },
    features: { type: 'array', items: { type: 'string', enum: [...PORTAL_FEATURES] } },
    return_url: orNull({ type: 'string' }),
    expires_at: { type: 'string', format: 'date-time' },
    exchanged_at: orNull({ type: 'string', format: 'date-time' }),
    revoked_at: orNull({ type: 'string', format: 'date-time' }),
    created_at: { type: 'string', format: 'date-time' },
  },
  required: [
    'id',
    'uuid',
    'company_uuid',
    'read_only',
    'features',
    'return_url',
    'expires_at',
    'exchanged_at',
    'revoked_at',
    'created_at',
  ],
};
const ONE = { type: 'object', properties: { portal_session: RECORD }, required: ['portal_session'] };

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
  ) {}

  @Post()
  @KeysOnly()
  @ApiOperation({
    operationId: 'createPortalSession',
    summary: 'Open a portal session: a link to the console signed in as a company',
    description:
      'The `url` opens the console as the company; its `token` (in the URL fragment, never sent to a server ' +
      'by the browser) is traded once for an HttpOnly session cookie. A company key opens its own company; a ' +
      'platform key (`api-keys:create --platform`) any company. `expires_in` seconds: 60 to 86400, default 3600.',
  })
  @ApiBody({
    schema: {
      anyOf: [
        {
          type: 'object',
          properties: { portal_session: dtoSchema(PortalSessionDto) },
          required: ['portal_session'],
        },
        dtoSchema(PortalSessionDto),
      ],
    },
    required: false,
  })
  @ApiCreatedResponse({
    description: 'The session, with its `url` and `token` (shown this once).',
    schema: {
      type: 'object',
      properties: {
        portal_session: {
          allOf: [
            RECORD,
            {
              type: 'object',
              properties: { url: { type: 'string' }, token: { type: 'string' } },
              required: ['url', 'token'],
            },
          ],
        },
      },
      required: ['portal_session'],
    },
  })
  async create(@Body() body: unknown, @Req() request: FastifyRequest) {
    const data = (body as { portal_session?: unknown } | undefined)?.portal_session ?? body ?? {};
    if (typeof data !== 'object' || data === null || Array.isArray(data))
      throw ApiError.invalid(
        BODY_POINTER,
        'The body must be a JSON object (optionally under "portal_session").',
      );
    const errors = validateDto(
      PortalSessionDto,
      data as Record<string, unknown>,
      false,
      ATTRIBUTES_POINTER,
      'portal_session',
    );
    if (errors.length) throw new ApiError(422, errors);
    const input = data as PortalSessionDto;
    const scope = RequestContext.current();
    if (!scope) throw new Error('No request scope: the access hook runs first');
    const company = input.company_uuid?.toLowerCase() ?? scope.companyUuid;
    if (company !== scope.companyUuid) {
      if (!scope.platform)
        throw ApiError.of(
          403,
          'A company key opens a portal for its own company only; a platform key opens any company’s.',
        );
      if (!(await this.accounts.companyExists(company)))
        throw ApiError.invalid(`${ATTRIBUTES_POINTER}/company_uuid`, `No company with uuid "${company}".`);
    }
    const created = await this.sessions.create({
      companyUuid: company,
      createdByCompanyUuid: scope.companyUuid,
      readOnly: input.read_only ?? false,
      expiresInSeconds: input.expires_in ?? DEFAULT_PORTAL_SECONDS,
      returnUrl: input.return_url ?? null,
      features: input.features ?? [...PORTAL_FEATURES],
    });
    const url = `${request.protocol}://${request.host}/console/#portal_token=${created.token}`;
    return { portal_session: { ...view(created), url } };
  }

  @Post('exchange')
  @Public()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'exchangePortalSession',
    summary: 'Trade a portal link’s token for the session cookie',
    description:
      'The console calls it with the token of its URL fragment. Each token works once; the answer sets the ' +
      'HttpOnly, Secure, SameSite=None, Partitioned cookie that authenticates the session.',
  })
  @ApiBody({
    schema: { type: 'object', properties: { token: { type: 'string' } }, required: ['token'] },
  })
  @ApiErrors(401)
  @ApiOkResponse({
    description: 'The session (the cookie is in Set-Cookie).',
    headers: { 'set-cookie': { description: 'The session cookie.', schema: { type: 'string' } } },
    schema: ONE,
  })
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
  @ApiOperation({
    operationId: 'getPortalSession',
    summary: 'A portal session (never its token)',
    description: 'Of the key’s company, or one the key’s company opened for another company.',
  })
  @ApiUuidParam()
  @ApiOkResponse({ schema: ONE })
  async find(@Param('uuid') uuid: string) {
    const found = await this.sessions.find(uuid, RequestContext.companyUuid());
    if (!found) throw ApiError.notFound(`No portal session with uuid "${uuid}".`);
    return { portal_session: view(found) };
  }

  @Delete(':uuid')
  @KeysOnly()
  @ApiOperation({
    operationId: 'revokePortalSession',
    summary: 'Revoke a portal session',
    description:
      'Its cookie stops authenticating (within seconds on every api process) and its link stops working.',
  })
  @ApiUuidParam()
  @ApiOkResponse({ description: 'The revoked session.', schema: ONE })
  async revoke(@Param('uuid') uuid: string) {
    const revoked = await this.sessions.revoke(uuid, RequestContext.companyUuid());
    if (!revoked) throw ApiError.notFound(`No portal session with uuid "${uuid}".`);
    return { portal_session: view(revoked) };
  }
}
