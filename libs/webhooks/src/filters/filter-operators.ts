import { FILTER_MAX_LIST } from '../tuning';
import { FilterClause, FilterError, Scalar, describeType, isScalar } from './filter-clause';

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
      const ok = Array.isArray(operand) && operand.length > 0 && operand.length <= FILTER_MAX_LIST;
      requireType(
        ok && (operand as unknown[]).every(isScalar),
        `an array of 1 to ${FILTER_MAX_LIST} scalars`,
      );
      // A comparison with a sequence holds when any pair matches: one variable for the whole list.
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
