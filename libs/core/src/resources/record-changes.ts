import type { ResourceChange, ResourceDefinition, ResourceRow } from './resource-definition';

type Record_ = Record<string, unknown>;
/** `{column: [before, after]}` of what an update changed. */
export type Changes = Record<string, [unknown, unknown]>;

/**
 * The `.updated` change of a record, if anything changed: each `after` is the value as served (what the
 * database made of it), not as written.
 */
export function updatedChange(
  def: ResourceDefinition,
  record: Record_,
  changes: Changes,
): ResourceChange | undefined {
  const fields = Object.keys(changes);
  if (!fields.length) return undefined;
  for (const field of fields) if (Object.hasOwn(record, field)) changes[field][1] = record[field];
  return { resource: def, action: 'updated', record, changes };
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a instanceof Date || b instanceof Date)
    return new Date(a as string).getTime() === new Date(b as string).getTime();
  if (typeof a === 'object' || typeof b === 'object') return JSON.stringify(a) === JSON.stringify(b);
  return a === b;
}

/** `{column: [before, value]}` of the values that differ from the row. */
export function diff(row: ResourceRow, values: Record_): Changes {
  const changes: Changes = {};
  for (const [column, value] of Object.entries(values)) {
    if (!sameValue(row[column], value)) changes[column] = [row[column], value];
  }
  return changes;
}

export function pick(values: Record_, keys: string[]): Record_ {
  return Object.fromEntries(keys.map((key) => [key, values[key]]));
}
