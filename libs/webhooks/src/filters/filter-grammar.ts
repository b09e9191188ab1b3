import { FILTER_MAX_BYTES, FILTER_MAX_DEPTH, FILTER_MAX_LIST } from '../tuning';
import {
  CompiledFilter,
  FilterClause,
  FilterError,
  Scalar,
  describeType,
  isObject,
  pointerOf,
} from './filter-clause';
import { compileTest } from './filter-operators';

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
export const LOGICAL_OPERATORS = ['$and', '$or', '$not'] as const;

const SEGMENT = /^[A-Za-z0-9_-]{1,64}$/;
const ROOTS = ['event', 'data'];
const MAX_SEGMENTS = 12;

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
    if (!Array.isArray(value) || !value.length)
      throw new FilterError(pointer, `${key} takes an array of 1 to ${FILTER_MAX_LIST} filters.`);
    if (value.length > FILTER_MAX_LIST)
      throw new FilterError(pointer, `${key} takes at most ${FILTER_MAX_LIST} filters, got ${value.length}.`);
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
    if (!isObject(value)) return compileTest(path, '$eq', value, pointer, (v) => this.variable(v));
    const entries = Object.entries(value);
    if (!entries.length)
      throw new FilterError(pointer, 'An empty set of conditions: give at least one operator.');
    const children = entries.map(([operator, operand]) =>
      compileTest(path, operator, operand, pointerOf(pointer, operator), (v) => this.variable(v)),
    );
    return combine('all', pointer, children);
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

export { clausesOf, failingClause } from './filter-clause';
export type { CompiledFilter, FilterClause } from './filter-clause';
export { FilterError } from './filter-clause';
export { LEAF_OPERATORS } from './filter-operators';
