import {
  IS_ARRAY,
  IS_BOOLEAN,
  IS_DATE,
  IS_DATE_STRING,
  IS_ENUM,
  IS_IN,
  IS_INT,
  IS_ISO8601,
  IS_NUMBER,
  IS_OBJECT,
  IS_STRING,
  IS_UUID,
} from 'class-validator';

/**
 * How much a failed constraint says about the kind of value a field takes: its JSON type first, then the
 * format or set of values a string must have; every other rule (range, length, pattern) after.
 */
const RANK = new Map<string, number>([
  ...[IS_STRING, IS_INT, IS_NUMBER, IS_BOOLEAN, IS_OBJECT, IS_ARRAY, IS_DATE].map(
    (name) => [name, 0] as const,
  ),
  ...[IS_UUID, IS_ISO8601, IS_DATE_STRING, IS_IN, IS_ENUM].map((name) => [name, 1] as const),
]);

/**
 * The message of the failed constraint that tells a client most: a string sent for an integer is "must be
 * an integer", not the `@Max(2100)` that fails on it too. Decorators register bottom-up, so in
 * `@IsInt() @Max(2100)` class-validator checks Max first; the declaration order cannot decide.
 */
export function firstProblem(constraints: Record<string, string>): string | undefined {
  let best: string | undefined;
  let bestRank = Infinity;
  for (const [name, message] of Object.entries(constraints)) {
    const rank = RANK.get(name) ?? 2;
    if (rank < bestRank) [best, bestRank] = [message, rank];
  }
  return best;
}
