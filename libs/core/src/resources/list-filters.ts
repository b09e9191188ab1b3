import { ApiError } from '../common/api-error';
import type { ColumnInfo, ResourceDefinition } from './resource-definition';
import { Params, UUID, ident, likePattern } from './sql';

// The filters of the list grammar: `<column>` and `<column>_<operator>` query parameters.

/** A query parameter's one value (given twice, it is an array: refused). */
export function single(name: string, value: unknown): string {
  if (typeof value !== 'string')
    throw ApiError.badParameter(name, `${name} must be given once, as a single value.`);
  return value;
}

const OPERATORS = [
  '_notIn',
  '_isNotNull',
  '_isNull',
  '_not',
  '_gte',
  '_gt',
  '_lte',
  '_lt',
  '_like',
  '_in',
] as const;
type Operator = (typeof OPERATORS)[number] | '';
const COMPARISON: Record<string, string> = { _gt: '>', _gte: '>=', _lt: '<', _lte: '<=' };

/** Converts one query-string value to the column's type, or rejects it with a 400 naming the parameter. */
export function coerce(parameter: string, column: ColumnInfo, raw: string): unknown {
  const fail = (expected: string) =>
    ApiError.badParameter(parameter, `${parameter} must be ${expected}, got "${raw}".`);
  switch (column.kind) {
    case 'integer':
      if (!/^-?\d{1,15}$/.test(raw)) throw fail('an integer');
      return Number(raw);
    case 'number':
      if (raw.trim() === '' || !Number.isFinite(Number(raw))) throw fail('a number');
      return Number(raw);
    case 'boolean':
      if (['true', '1'].includes(raw)) return true;
      if (['false', '0'].includes(raw)) return false;
      throw fail('true or false');
    case 'uuid':
      if (!UUID.test(raw)) throw fail('a uuid');
      return raw.toLowerCase();
    case 'timestamp':
      if (!/^\d{4}-\d{2}-\d{2}/.test(raw) || Number.isNaN(Date.parse(raw)))
        throw fail('an ISO-8601 date-time');
      return new Date(raw).toISOString();
    case 'json':
      throw ApiError.badParameter(parameter, `${column.name} cannot be filtered.`);
    default:
      if (column.enum && !column.enum.includes(raw)) throw fail(`one of ${column.enum.join(', ')}`);
      return raw;
  }
}

function splitParameter(name: string, def: ResourceDefinition): [ColumnInfo, Operator] {
  const exact = def.columns.get(name);
  if (exact) return [exact, ''];
  for (const operator of OPERATORS) {
    if (name.endsWith(operator)) {
      const column = def.columns.get(name.slice(0, -operator.length));
      if (column) return [column, operator];
      break;
    }
  }
  throw ApiError.badParameter(
    name,
    `Unknown query parameter "${name}": filter only on ${[...def.columns.keys()].join(', ')}.`,
  );
}

/** One filter parameter as a SQL condition on `t`; a searchable column's `_like` text joins `searches`. */
export function filter(
  name: string,
  raw: string,
  def: ResourceDefinition,
  params: Params,
  searches: string[],
): string {
  const [column, operator] = splitParameter(name, def);
  const col = `t.${ident(column.name)}`;
  switch (operator) {
    case '':
      return `${col} = ${params.add(coerce(name, column, raw))}`;
    case '_not':
      return `${col} IS DISTINCT FROM ${params.add(coerce(name, column, raw))}`;
    case '_like': {
      const test = `${column.kind === 'string' ? col : `${col}::text`} ILIKE ${params.add(likePattern(raw))} ESCAPE '\\'`;
      if (def.searchable.includes(column.name) && raw !== '') searches.push(raw);
      return test;
    }
    case '_in':
    case '_notIn': {
      const values = raw.split(',').map((item) => coerce(name, column, item));
      const test = `${col} = ANY(${params.add(values)})`;
      return operator === '_in' ? test : `(NOT (${test}) OR ${col} IS NULL)`;
    }
    case '_isNull':
    case '_isNotNull':
      if (!['true', '1', ''].includes(raw))
        throw ApiError.badParameter(name, `${name} takes the value true.`);
      return `${col} ${operator === '_isNull' ? 'IS NULL' : 'IS NOT NULL'}`;
    default:
      return `${col} ${COMPARISON[operator]} ${params.add(coerce(name, column, raw))}`;
  }
}
