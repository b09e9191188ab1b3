import {
  ApiError,
  PermissionCatalog,
  PermissionCheck,
  attributePointer,
  errorObject,
  insufficientPermission,
} from '@wharf/core';
import { applyDecorators } from '@nestjs/common';
import { ArrayMaxSize, ArrayNotEmpty, IsArray, IsOptional, IsString, MaxLength } from 'class-validator';
import { normalisePermissions } from './accounts.service';

/** A request body's optional `permissions`: names and wildcards of GET /int/v1/permissions. */
export const IsPermissionList = () =>
  applyDecorators(
    IsOptional(),
    IsArray(),
    ArrayNotEmpty(),
    ArrayMaxSize(200),
    IsString({ each: true }),
    MaxLength(128, { each: true }),
  );

/**
 * The permissions a new key or portal session gets: those asked for, each a name or wildcard of the catalog
 * (a 422 pointing at each one that is not), or else the creator's own; never one the creator lacks (403
 * naming it), so no key makes a key or session more powerful than itself.
 */
export function grantedPermissions(
  catalog: PermissionCatalog,
  creator: PermissionCheck,
  requested: readonly string[] | undefined,
  what: 'An API key' | 'A portal session',
): string[] {
  const wanted = requested ?? creator.patterns;
  const problems = catalog.problems(wanted);
  if (problems.length)
    throw new ApiError(
      422,
      problems.map(([index, detail]) =>
        errorObject(422, detail, { source: { pointer: attributePointer('permissions', index) } }),
      ),
    );
  const lacking = catalog.lacking(creator, wanted);
  if (lacking)
    throw insufficientPermission(
      lacking,
      `${what} can only get permissions its creator holds; this key lacks ${lacking}.`,
    );
  return normalisePermissions(wanted);
}
