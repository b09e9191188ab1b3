import { ErrorObject, attributePointer, errorObject } from '@wharf/core';
import { FilterError, compileFilter } from './filter-grammar';

/** The filter of an endpoint write checked: null when it filters nothing, a 422 error object when refused. */
export function checkFilter(values: Record<string, unknown>): ErrorObject | undefined {
  if (values.filter === undefined) return undefined;
  try {
    if (!compileFilter(values.filter)) values.filter = null;
    return undefined;
  } catch (error) {
    if (!(error instanceof FilterError)) throw error;
    return errorObject(422, error.message, {
      source: { pointer: attributePointer('filter') + error.pointer },
    });
  }
}

/**
 * The statement that stores a filter's compiled form beside it, in the write's transaction: the fan-out
 * statement reads filter_path and filter_vars (a jsonpath value, parsed once here, never per event).
 */
export function compiledFilterUpdate(uuid: string, filter: unknown): [string, unknown[]] {
  const compiled = compileFilter(filter);
  return [
    'UPDATE webhook_endpoints SET filter_path = $2::jsonpath, filter_vars = $3::jsonb WHERE uuid = $1',
    [uuid, compiled?.root.path ?? null, compiled ? JSON.stringify(compiled.vars) : null],
  ];
}
