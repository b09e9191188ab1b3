import { ApiError } from '../common/api-error';
import { attributePointer } from '../common/pointer';
import { ResourceDefinition } from './resource-definition';

/** The one 404 of a resource: a record of another company is answered exactly like a missing one. */
export function notFound(def: ResourceDefinition, uuid: string): ApiError {
  return ApiError.notFound(`No ${def.name} with uuid "${uuid}".`);
}

/** Database errors a client caused become 4xx with a pointer where the column is known. */
export function explainDbError(error: unknown): unknown {
  const db = error as { code?: string; column?: string; constraint?: string };
  if (db.code === '23502' && db.column) {
    return ApiError.invalid(attributePointer(db.column), `${db.column} is required.`);
  }
  return error;
}
