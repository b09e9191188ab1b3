/** The clauses a payload filter compiles to (filter-grammar.ts), and how a non-match is explained. */

export type Scalar = string | number | boolean | null;

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

export const pointerOf = (parent: string, key: string | number) =>
  `${parent}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;

/** PostgreSQL's JSON holds no NUL and no lone surrogate: such a string could never match, and fails to store. */
const unstorable = (value: unknown) =>
  typeof value === 'string' && (value.includes('\u0000') || /\p{Surrogate}/u.test(value));

export const isScalar = (value: unknown): value is Scalar =>
  value === null ||
  (typeof value === 'string' && !unstorable(value)) ||
  typeof value === 'boolean' ||
  Number.isFinite(value);

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export const describeType = (value: unknown) =>
  Array.isArray(value)
    ? 'an array'
    : value === null
      ? 'null'
      : unstorable(value)
        ? 'a string with NUL or a lone surrogate'
        : typeof value === 'object'
          ? 'an object'
          : `a ${typeof value}`;

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
