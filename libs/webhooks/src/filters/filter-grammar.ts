import { FILTER_MAX_BYTES, FILTER_MAX_DEPTH, FILTER_MAX_LIST } from '../tuning';

/**
 * An endpoint's payload filter: a small MongoDB-style JSON document over the envelope, compiled once (when
 * the endpoint is saved) into one SQL/JSON path predicate and the variables it binds. The fan-out statement
 * evaluates it with jsonb_path_match, so a filter is PostgreSQL's to decide, never JavaScript's; values
 * reach the path only as variables ($v0, $v1 …), keys only after matching SEGMENT.
 *
 *   {"data.status": {"$in": ["completed", "canceled"]}, "data.capacity": {"$gte": 100},
 *    "$or": [{"event": "order.created"}, {"data.additionalData.changes.status": {"$exists": true}}]}
 *
 * A bare value means $eq. Paths start at `event` or `data`; arrays on the way are searched (any element
 * may match, as in MongoDB). $ne, $nin and $exists: false also hold where the path is missing.
 */
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
export const LOGICAL_OPERATORS = ['$and', '$or', '$not'] as const;

type Scalar = string | number | boolean | null;

/** One clause of a compiled filter: where it is in the document, and its own predicate. */
export interface FilterClause {
  /** JSON pointer of the clause inside the filter ('' for the whole filter). */
  pointer: string;
  /** A boolean SQL/JSON path expression over the envelope (always true or false, never unknown). */
  path: string;
  kind: 'all' | 'any' | 'not' | 'test';
  children: FilterClause[];
}

export interface CompiledFilter {
  root: FilterClause;
  /** The variables every clause's path reads. */
  vars: Record<string, Scalar | Scalar[]>;
}

/** A filter refused: the pointer (inside the filter) of the offending part and what is wrong with it. */
export class FilterError extends Error {
  constructor(
    readonly pointer: string,
    message: string,
  ) {
    super(message);
  }
}

const SEGMENT = /^[A-Za-z0-9_-]{1,64}$/;
const ROOTS = ['event', 'data'];
const MAX_SEGMENTS = 12;

const pointerOf = (parent: string, key: string | number) =>
  `${parent}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;

const isScalar = (value: unknown): value is Scalar =>
  value === null || ['string', 'boolean'].includes(typeof value) || Number.isFinite(value);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const describeType = (value: unknown) =>
  Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value;

class Compiler {
  readonly vars: Record<string, Scalar | Scalar[]> = {};

  private variable(value: Scalar | Scalar[]): string {
    const name = `v${Object.keys(this.vars).length}`;
    this.vars[name] = value;
    return `$${name}`;
  }

  /** `{a: …, b: …, $or: […]}`: every entry holds. */
  document(doc: unknown, pointer: string, depth: number): FilterClause {
    if (!isObject(doc))
      throw new FilterError(pointer, `A filter is a JSON object, not ${describeType(doc)}.`);
    if (depth > FILTER_MAX_DEPTH)
      throw new FilterError(
        pointer,
        `A filter nests at most ${FILTER_MAX_DEPTH} levels of $and, $or and $not.`,
      );
    const children = Object.entries(doc).map(([key, value]) => {
      const at = pointerOf(pointer, key);
      if (key === '$and' || key === '$or') return this.list(key, value, at, depth);
      if (key === '$not') {
        const inner = this.document(value, at, depth + 1);
        return { pointer: at, path: `!(${inner.path})`, kind: 'not' as const, children: [inner] };
      }
      if (key.startsWith('$'))
        throw new FilterError(
          at,
          `Unknown operator "${key}": use ${LOGICAL_OPERATORS.join(', ')} here, or a field path.`,
        );
      return this.field(key, value, at);
    });
    return combine('all', pointer, children);
  }

  private list(key: '$and' | '$or', value: unknown, pointer: string, depth: number): FilterClause {
    if (!Array.isArray(value) || !value.length || value.length > FILTER_MAX_LIST)
      throw new FilterError(pointer, `${key} takes an array of 1 to ${FILTER_MAX_LIST} filters.`);
    const children = value.map((item, index) => this.document(item, pointerOf(pointer, index), depth + 1));
    return combine(key === '$and' ? 'all' : 'any', pointer, children);
  }

  private field(key: string, value: unknown, pointer: string): FilterClause {
    const segments = key.split('.');
    if (
      !ROOTS.includes(segments[0]) ||
      segments.length > MAX_SEGMENTS ||
      !segments.every((s) => SEGMENT.test(s)) ||
      (segments[0] === 'event' && segments.length > 1)
    ) {
      throw new FilterError(
        pointer,
        `"${key}" is not a path into the envelope: use "event", or "data." followed by up to ${MAX_SEGMENTS - 1} ` +
          'dot-separated names of letters, digits, "_" and "-" (e.g. "data.status", "data.additionalData.changes.name").',
      );
    }
    const path = `$${segments.map((s) => `."${s}"`).join('')}`;
    if (!isObject(value)) return this.test(path, '$eq', value, pointer);
    const entries = Object.entries(value);
    if (!entries.length)
      throw new FilterError(pointer, 'An empty set of conditions: give at least one operator.');
    const children = entries.map(([operator, operand]) =>
      this.test(path, operator, operand, pointerOf(pointer, operator)),
    );
    return combine('all', pointer, children);
  }

  private test(path: string, operator: string, operand: unknown, pointer: string): FilterClause {
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
        const found = `exists(${path} ? (@ == ${this.variable(operand as Scalar)}))`;
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
        const found = `exists(${path} ? (@ == ${this.variable(operand as Scalar[])}[*]))`;
        return leaf(operator === '$in' ? found : `!${found}`);
      }
      case '$gt':
      case '$gte':
      case '$lt':
      case '$lte': {
        requireType(typeof operand === 'string' || Number.isFinite(operand), 'a number or a string');
        const sign = { $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' }[operator];
        return leaf(`exists(${path} ? (@ ${sign} ${this.variable(operand as Scalar)}))`);
      }
      case '$exists':
        requireType(typeof operand === 'boolean', 'true or false');
        return leaf(operand ? `exists(${path})` : `!exists(${path})`);
      case '$contains': {
        requireType(isScalar(operand) && operand !== null, 'a string, number or boolean');
        const element = `@ == ${this.variable(operand as Scalar)}`;
        // A string also matches inside a string: like_regex's "q" flag reads the pattern as plain text.
        const within =
          typeof operand === 'string' ? ` || @ like_regex ${JSON.stringify(operand)} flag "q"` : '';
        return leaf(`exists(${path} ? (${element}${within}))`);
      }
      case '$prefix':
        requireType(typeof operand === 'string' && operand.length > 0, 'a non-empty string');
        return leaf(`exists(${path} ? (@ starts with ${this.variable(operand as string)}))`);
      default:
        throw new FilterError(
          pointer,
          `Unknown operator "${operator}": use one of ${LEAF_OPERATORS.join(', ')}.`,
        );
    }
  }
}

function combine(kind: 'all' | 'any', pointer: string, children: FilterClause[]): FilterClause {
  if (children.length === 1 && kind === 'all') return children[0];
  const path = children.length
    ? `(${children.map((c) => c.path).join(kind === 'all' ? ' && ' : ' || ')})`
    : 'true';
  return { pointer, path, kind, children };
}

/**
 * Validates and compiles a filter; throws FilterError (pointer relative to the filter) when it is refused.
 * An empty object filters nothing: undefined.
 */
export function compileFilter(filter: unknown): CompiledFilter | undefined {
  if (filter === null || filter === undefined) return undefined;
  const size = Buffer.byteLength(JSON.stringify(filter));
  if (size > FILTER_MAX_BYTES)
    throw new FilterError('', `A filter is at most ${FILTER_MAX_BYTES} bytes of JSON; this one is ${size}.`);
  if (isObject(filter) && !Object.keys(filter).length) return undefined;
  const compiler = new Compiler();
  return { root: compiler.document(filter, '', 0), vars: compiler.vars };
}

/** Every clause of a compiled filter, depth first, the whole filter first. */
export function clausesOf(root: FilterClause): FilterClause[] {
  return [root, ...root.children.flatMap(clausesOf)];
}

/**
 * The clause that decides a non-match, given whether each clause holds: for "all", its first failing
 * child; for "any" and "not" (and a single test), the clause itself.
 */
export function failingClause(
  clause: FilterClause,
  holds: (clause: FilterClause) => boolean,
): FilterClause | undefined {
  if (holds(clause)) return undefined;
  if (clause.kind !== 'all') return clause;
  const failing = clause.children.find((child) => !holds(child));
  return failing ? (failingClause(failing, holds) ?? failing) : clause;
}
