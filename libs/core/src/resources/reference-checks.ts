import { ApiError, ErrorObject, errorObject } from '../common/api-error';
import type { ResourceDefinition, WriteTransaction } from './resource-definition';
import { scopedSql } from './resource-sql';

/** Values about to be written, and the JSON pointer of the object they came from (for a 422). */
export interface PointedValues {
  values: Record<string, unknown>;
  pointer: string;
}

/**
 * `*_uuid` values must name a record of the caller's company; anything else is a 422, never adopted.
 * One statement per reference column, whatever the number of records; `trusted` is a column the write
 * itself sets (a child's parent), not worth checking.
 */
export async function checkReferences(
  tx: WriteTransaction,
  def: ResourceDefinition,
  items: PointedValues[],
  trusted?: string,
): Promise<void> {
  const errors: ErrorObject[] = [];
  for (const reference of def.references) {
    if (reference.column === trusted) continue;
    const given = items.filter(({ values }) => values[reference.column] != null);
    if (!given.length) continue;
    const found = await scopedSql.existing(
      tx.sql,
      reference.table,
      reference.scoped ? tx.companyUuid : null,
      given.map(({ values }) => values[reference.column]).filter((v): v is string => typeof v === 'string'),
    );
    for (const { values, pointer } of given) {
      const value = values[reference.column];
      if (typeof value === 'string' && found.has(value.toLowerCase())) continue;
      errors.push(
        errorObject(422, `${reference.column} does not refer to a ${reference.resource} of your company.`, {
          source: { pointer: `${pointer}/${reference.column}` },
        }),
      );
    }
  }
  if (errors.length) throw new ApiError(422, errors);
}
