import { Body, Controller, Delete, Get, Param, Post } from '@nestjs/common';
import { ApiError } from '../http/api-error';
import { validateDto } from '../resources/body-reader';
import { RequestContext } from '../tenancy/request-context';
import { AccountsService } from './accounts.service';
import { IsOptional, IsString, MaxLength } from 'class-validator';

class ApiKeyDto {
  @IsOptional()
  @IsString()
  @MaxLength(255)
  name?: string;
}

/** Key management for the console: list (prefix + last four only), create (shown once), revoke. */
@Controller('api-keys')
export class ApiKeysController {
  constructor(private readonly accounts: AccountsService) {}

  @Get()
  async list() {
    return { api_keys: await this.accounts.listApiKeys(RequestContext.companyUuid()) };
  }

  @Post()
  async create(@Body() body: unknown) {
    const data = (body as { api_key?: unknown })?.api_key ?? body ?? {};
    if (typeof data !== 'object' || data === null || Array.isArray(data))
      throw ApiError.invalid('/api_key', 'The body must be a JSON object (optionally under "api_key").');
    const errors = validateDto(ApiKeyDto, data as Record<string, unknown>, false, '/api_key', 'api_key');
    if (errors.length) throw new ApiError(422, errors);
    const created = await this.accounts.createApiKey(
      RequestContext.companyUuid(),
      (data as ApiKeyDto).name ?? null,
    );
    return { api_key: created };
  }

  @Delete(':uuid')
  async revoke(@Param('uuid') uuid: string) {
    const revoked = await this.accounts.revokeApiKey(uuid, RequestContext.companyUuid());
    if (!revoked) throw ApiError.notFound(`No API key with uuid "${uuid}".`);
    return { api_key: revoked };
  }
}
