import { FilterClause, FilterError, Scalar, describeType, isScalar, pointerOf } from './filter-clause';

export const LEAF_OPERATORS = [
  '$eq',
  '$ne',
  '$in',
  '$nin',
  '$gt',
  '$gte',
  '$lt',
  '$lte',
  '$exists',
  '$contains',
  '$prefix',
] as const;

/** The values of $in or $nin: a non-empty array of scalars; a refusal points at the offending value. */
function checkValueList(operator: string, operand: unknown, pointer: string): void {
  const expected = 'an array of strings, numbers, booleans or null';
  if (!Array.isArray(operand))
    throw new FilterError(pointer, `${operator} takes ${expected}, not ${describeType(operand)}.`);
  if (!operand.length) throw new FilterError(pointer, `${operator} takes ${expected}, not an empty one.`);
  const index = operand.findIndex((value) => !isScalar(value));
  if (index >= 0)
    throw new FilterError(
      pointerOf(pointer, index),
      `${operator} takes ${expected}; this value is ${describeType(operand[index])}.`,
    );
}

/**
 * One operator of a field's conditions as a SQL/JSON path test of the value(s) at `path`: every one an
 * exists(…), so always true or false, the negated ones true where the path is missing.
 */
export function compileTest(
  path: string,
  operator: string,
  operand: unknown,
  pointer: string,
  variable: (value: Scalar | Scalar[]) => string,
): FilterClause {
  const leaf = (expression: string): FilterClause => ({
    pointer,
    path: expression,
    kind: 'test',
    children: [],
  });
  const requireType = (ok: boolean, expected: string) => {
    if (!ok) throw new FilterError(pointer, `${operator} takes ${expected}, not ${describeType(operand)}.`);
  };
  switch (operator) {
    case '$eq':
    case '$ne': {
      requireType(isScalar(operand), 'a string, number, boolean or null (use $in for a list)');
      const found = `exists(${path} ? (@ == ${variable(operand as Scalar)}))`;
      return leaf(operator === '$eq' ? found : `!${found}`);
    }
    case '$in':
    case '$nin': {
      checkValueList(operator, operand, pointer);
      // A comparison with a sequence holds when any pair matches: one variable for the whole list.
      // Its length is bounded by FILTER_MAX_BYTES alone, as is the number of values a whole filter holds.
      const found = `exists(${path} ? (@ == ${variable(operand as Scalar[])}[*]))`;
      return leaf(operator === '$in' ? found : `!${found}`);
    }
    default:
      return compileValueTest(path, operator, operand, pointer, variable, leaf, requireType);
  }
}

/** compileTest's operators past equality and lists: order, existence, containment, prefix. */
function compileValueTest(
  path: string,
  operator: string,
  operand: unknown,
  pointer: string,
  variable: (value: Scalar | Scalar[]) => string,
  leaf: (expression: string) => FilterClause,
  requireType: (ok: boolean, expected: string) => void,
): FilterClause {
  switch (operator) {
    case '$gt':
    case '$gte':
    case '$lt':
    case '$lte': {
      requireType(
        (typeof operand === 'string' || Number.isFinite(operand)) && isScalar(operand),
        'a number or a string',
      );
      const sign = { $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' }[operator];
      return leaf(`exists(${path} ? (@ ${sign} ${variable(operand as Scalar)}))`);
    }
    case '$exists':
      requireType(typeof operand === 'boolean', 'true or false');
      return leaf(operand ? `exists(${path})` : `!exists(${path})`);
    case '$contains': {
      requireType(isScalar(operand) && operand !== null, 'a string, number or boolean');
      const element = `@ == ${variable(operand as Scalar)}`;
      // A string also matches inside a string: like_regex's "q" flag reads the pattern as plain text.
      const within =
        typeof operand === 'string' ? ` || @ like_regex ${JSON.stringify(operand)} flag "q"` : '';
      return leaf(`exists(${path} ? (${element}${within}))`);
    }
    case '$prefix':
      requireType(
        typeof operand === 'string' && operand.length > 0 && isScalar(operand),
        'a non-empty string',
      );
      return leaf(`exists(${path} ? (@ starts with ${variable(operand as string)}))`);
    default:
      throw new FilterError(
        pointer,
        `Unknown operator "${operator}": use one of ${LEAF_OPERATORS.join(', ')}.`,
      );
  }
}
