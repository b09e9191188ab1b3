import { Body, Controller, Delete, Get, Param, Post } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AccountsService } from './accounts.service';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import {
  ApiError,
  ATTRIBUTES_POINTER,
  BODY_POINTER,
  dtoSchema,
  orNull,
  ApiUuidParam,
  validateDto,
  RequestContext,
  KeysOnly,
  Permission,
  PermissionCatalog,
} from '@wharf/core';
import { IsPermissionList, grantedPermissions } from './permission-input';

class ApiKeyDto {
  @IsOptional()
  @IsString()
  @MaxLength(255)
  name?: string;

  /** Names and wildcards of GET /int/v1/permissions; default: the creating key's own. */
  @IsPermissionList()
  permissions?: string[];
}

const SUMMARY = {
  type: 'object',
  properties: {
    id: { type: 'string', format: 'uuid' },
    uuid: { type: 'string', format: 'uuid' },
    name: orNull({ type: 'string' }),
    prefix: { type: 'string' },
    last_four: { type: 'string' },
    permissions: {
      type: 'array',
      items: { type: 'string' },
      description: 'Permission names and wildcards; `["*"]`: every permission (a `wharf_live_` key).',
      example: ['inventory.warehouses:read'],
    },
    last_used_at: orNull({ type: 'string', format: 'date-time' }),
    revoked_at: orNull({ type: 'string', format: 'date-time' }),
    created_at: { type: 'string', format: 'date-time' },
  },
  required: [
    'id',
    'uuid',
    'name',
    'prefix',
    'last_four',
    'permissions',
    'last_used_at',
    'revoked_at',
    'created_at',
  ],
};
const ONE = { type: 'object', properties: { api_key: SUMMARY }, required: ['api_key'] };

/** Key management for the console: list (prefix + last four only), create (shown once), revoke. API keys only. */
@ApiTags('api-keys')
@KeysOnly()
@Controller('api-keys')
export class ApiKeysController {
  constructor(
    private readonly accounts: AccountsService,
    private readonly catalog: PermissionCatalog,
  ) {}

  @Get()
  @Permission('api_keys:read')
  @ApiOperation({
    operationId: 'listApiKeys',
    summary: 'List the company’s API keys (never the keys)',
    description: 'Every key, revoked ones included, as its prefix and last four characters.',
  })
  @ApiOkResponse({
    schema: {
      type: 'object',
      properties: { api_keys: { type: 'array', items: SUMMARY } },
      required: ['api_keys'],
    },
  })
  async list() {
    return { api_keys: await this.accounts.listApiKeys(RequestContext.companyUuid()) };
  }

  @Post()
  @Permission('api_keys:write')
  @ApiOperation({
    operationId: 'createApiKey',
    summary: 'Create an API key (shown this once)',
    description:
      'The response is the only one that carries the key itself; the api stores only its hash. `permissions` ' +
      '(names and wildcards of GET /int/v1/permissions) default to the creating key’s own, and may not exceed ' +
      'them (403 `insufficient_permission`). A key without every permission is a restricted key, `wharf_rk_…`.',
  })
  @ApiBody({
    required: false,
    schema: {
      anyOf: [
        { type: 'object', properties: { api_key: dtoSchema(ApiKeyDto) }, required: ['api_key'] },
        dtoSchema(ApiKeyDto),
      ],
    },
  })
  @ApiCreatedResponse({
    description: 'The key, with the secret `key` (shown this once).',
    schema: {
      type: 'object',
      properties: {
        api_key: {
          allOf: [SUMMARY, { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] }],
        },
      },
      required: ['api_key'],
    },
  })
  async create(@Body() body: unknown) {
    const data = (body as { api_key?: unknown })?.api_key ?? body ?? {};
    if (typeof data !== 'object' || data === null || Array.isArray(data))
      throw ApiError.invalid(BODY_POINTER, 'The body must be a JSON object (optionally under "api_key").');
    const errors = validateDto(
      ApiKeyDto,
      data as Record<string, unknown>,
      false,
      ATTRIBUTES_POINTER,
      'api_key',
    );
    if (errors.length) throw new ApiError(422, errors);
    const input = data as ApiKeyDto;
    const creator = RequestContext.current()?.grants;
    if (!creator) throw new Error('No request scope: the access hook runs first');
    const permissions = grantedPermissions(this.catalog, creator, input.permissions, 'An API key');
    const created = await this.accounts.createApiKey(
      RequestContext.companyUuid(),
      input.name ?? null,
      false,
      permissions,
    );
    return { api_key: created };
  }

  @Delete(':uuid')
  @Permission('api_keys:write')
  @ApiOperation({
    operationId: 'revokeApiKey',
    summary: 'Revoke an API key',
    description: 'The key stops authenticating at once; it stays listed with `revoked_at`.',
  })
  @ApiUuidParam()
  @ApiOkResponse({ description: 'The revoked key.', schema: ONE })
  async revoke(@Param('uuid') uuid: string) {
    const revoked = await this.accounts.revokeApiKey(uuid, RequestContext.companyUuid());
    if (!revoked) throw ApiError.notFound(`No API key with uuid "${uuid}".`);
    return { api_key: revoked };
  }
}
