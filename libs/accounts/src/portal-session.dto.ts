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
import { ApiError, ATTRIBUTES_POINTER, BODY_POINTER, validateDto } from '@wharf/core';
import { IsPermissionList } from './permission-input';
import { MAX_PORTAL_SECONDS, PORTAL_FEATURES } from './portal-sessions.service';

/** What a client may ask of a new portal session. */
export class PortalSessionDto {
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

  /** Names and wildcards of GET /int/v1/permissions; `read_only: true` is short for `["*:read", "*:reveal"]`. */
  @IsPermissionList()
  permissions?: string[];
}

/** The body of a create, its fields at the root or under `portal_session`: 422 naming each bad field. */
export function portalSessionInput(body: unknown): PortalSessionDto {
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
  if (input.read_only === true && input.permissions !== undefined)
    throw ApiError.invalid(
      `${ATTRIBUTES_POINTER}/read_only`,
      'read_only is short for permissions ["*:read", "*:reveal"]: send one of the two.',
    );
  return input;
}
