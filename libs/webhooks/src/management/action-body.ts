import { Type } from '@nestjs/common';
import { ATTRIBUTES_POINTER, ApiError, BODY_POINTER, validateDto } from '@wharf/core';

/**
 * Reads the JSON body of an action route (e.g. `{since, until}`) against its DTO; no body is `{}`. A field
 * sent as null is one not sent: `@IsOptional` lets null through, and `{"event": null}` reached the test
 * route's defaults as null (a 500 the fuzzer found); a required field sent as null is missing (a 422).
 */
export function readActionBody<T extends object>(dto: Type<T>, body: unknown, action: string): T {
  const data = body ?? {};
  if (typeof data !== 'object' || Array.isArray(data))
    throw ApiError.invalid(BODY_POINTER, 'The body must be a JSON object.');
  const given = Object.fromEntries(Object.entries(data).filter(([, value]) => value !== null));
  const errors = validateDto(dto, given, false, ATTRIBUTES_POINTER, action);
  if (errors.length) throw new ApiError(422, errors);
  return given as T;
}
