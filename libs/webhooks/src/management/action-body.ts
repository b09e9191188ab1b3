import { Type } from '@nestjs/common';
import { ATTRIBUTES_POINTER, ApiError, BODY_POINTER, validateDto } from '@wharf/core';

/** Reads the JSON body of an action route (e.g. `{since, until}`) against its DTO; no body is `{}`. */
export function readActionBody<T extends object>(dto: Type<T>, body: unknown, action: string): T {
  const data = body ?? {};
  if (typeof data !== 'object' || Array.isArray(data))
    throw ApiError.invalid(BODY_POINTER, 'The body must be a JSON object.');
  const errors = validateDto(dto, data as Record<string, unknown>, false, ATTRIBUTES_POINTER, action);
  if (errors.length) throw new ApiError(422, errors);
  return data as T;
}
