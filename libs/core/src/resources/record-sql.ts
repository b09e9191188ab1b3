import { ColumnInfo, ResourceDefinition } from './resource-definition';
import { ident } from './sql';

/** A column as the wire shows it: timestamps as ISO-8601 with milliseconds in UTC, as `Date#toJSON` writes them. */
export function wireValue(alias: string, column: ColumnInfo): string {
  const ref = `${alias}.${ident(column.name)}`;
  return column.kind === 'timestamp'
    ? `to_char(${ref} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
    : ref;
}

/**
 * A number as JSON.stringify writes it: PostgreSQL and V8 print the same shortest digits, but PostgreSQL
 * switches to an exponent (with two digits) outside [1e-4, 1e15) where V8 does outside [1e-6, 1e21).
 * A real or numeric is read through its text, as JSON.parse would read PostgreSQL's, so it is the double a
 * client got; a double is that already (and each cast is work PostgreSQL sets up on every execution).
 */
function jsNumber(ref: string, double: boolean): string {
  const v = double ? ref : `${ref}::text::float8`;
  // Cheapest first: a NULL, then the usual range (which NaN and the infinities fail), then the rare forms.
  return `CASE WHEN ${ref} IS NULL THEN NULL
    WHEN abs(${v}) >= 1e-6 AND abs(${v}) < 1e21 THEN ${v}::text::numeric::text
    WHEN ${v} = 0 THEN '0'
    WHEN ${v} = 'NaN'::float8 OR abs(${v}) = 'Infinity'::float8 THEN to_json(${v})::text
    ELSE regexp_replace(${v}::text, 'e([+-])0+', 'e\\1') END`;
}

/**
 * A column's value as compact JSON text, the bytes JSON.stringify writes for what the parsed value would be.
 * A `json` column is its stored text, which only normalising makes compact (see needsNormalising).
 */
export function jsonValue(alias: string, column: ColumnInfo): string {
  const ref = `${alias}.${ident(column.name)}`;
  const text =
    column.kind === 'uuid'
      ? `'"' || ${ref}::text || '"'`
      : column.kind === 'timestamp'
        ? `'"' || ${wireValue(alias, column)} || '"'`
        : column.kind === 'integer' || column.kind === 'boolean'
          ? `${ref}::text`
          : column.kind === 'number'
            ? jsNumber(ref, column.double === true)
            : `to_json(${ref})::text`;
  return column.nullable === false ? text : `COALESCE(${text}, 'null')`;
}

/** A SQL string literal of `text`. */
const quoted = (text: string) => `'${text.replace(/'/g, "''")}'`;

/** Concatenates literal text and SQL text expressions, adjacent literals merged. */
function concat(parts: ({ literal: string } | { sql: string })[]): string {
  const terms: string[] = [];
  let pending = '';
  for (const part of parts) {
    if ('literal' in part) pending += part.literal;
    else {
      if (pending) terms.push(quoted(pending));
      pending = '';
      terms.push(part.sql);
    }
  }
  if (pending) terms.push(quoted(pending));
  return `(${terms.join(' || ')})`;
}

/**
 * Whether the JSON text of `def`'s records (embeds included) must be parsed and written again to be what
 * JSON.stringify writes: only a `json` column's stored text can differ (spacing, number forms).
 */
export function needsNormalising(def: ResourceDefinition): boolean {
  let known = normalising.get(def);
  if (known === undefined) {
    const own = (d: ResourceDefinition) => [...d.columns.values()].some((column) => column.kind === 'json');
    known = own(def) || def.embeds.some((embed) => own(embed.target()));
    normalising.set(def, known);
  }
  return known;
}

const normalising = new WeakMap<ResourceDefinition, boolean>();

/**
 * The SQL text expression of a row's wire record as compact JSON: `id` (= `uuid`, so generic clients such as
 * Ember Data's default primary key work unchanged), its columns in declaration order and, when `embeds`,
 * every embedded relationship as a correlated sub-select scoped to the row's company — so a record with all
 * its embeds, or a whole page of them, is one statement, and its text goes to the client as it is.
 */
export function recordExpression(
  def: ResourceDefinition,
  alias: string,
  embeds: boolean | 'inserted' = true,
): string {
  // Built once per shape: rebuilding it was a large share of the api's allocations on GET one.
  let built = expressions.get(def);
  if (!built) expressions.set(def, (built = new Map()));
  const key = `${alias}:${embeds}`;
  let expression = built.get(key);
  if (expression === undefined) built.set(key, (expression = buildRecordExpression(def, alias, embeds)));
  return expression;
}

const expressions = new WeakMap<ResourceDefinition, Map<string, string>>();

function buildRecordExpression(def: ResourceDefinition, alias: string, embeds: boolean | 'inserted'): string {
  const pairs: [string, string][] = [
    ['id', jsonValue(alias, { name: 'uuid', kind: 'uuid', nullable: true })],
    ...[...def.columns.values()].map((column): [string, string] => [column.name, jsonValue(alias, column)]),
  ];
  if (embeds) {
    def.embeds.forEach((embed, i) => {
      const target = embed.target();
      const child = `e${i}_${alias}`;
      const from = `${ident(target.table)} ${child}`;
      if (embed.kind === 'one') {
        pairs.push([
          embed.property,
          `COALESCE((SELECT ${recordExpression(target, child, false)} FROM ${from}
            WHERE ${child}."uuid" = ${alias}.${ident(embed.column)} AND ${child}."company_uuid" = ${alias}."company_uuid"), 'null')`,
        ]);
      } else if (embeds === 'inserted') {
        pairs.push([embed.property, `'[]'`]);
      } else {
        pairs.push([
          embed.property,
          `COALESCE((SELECT '[' || string_agg(${recordExpression(target, child, false)}, ',' ORDER BY ${child}."created_at", ${child}."id") || ']'
            FROM ${from} WHERE ${child}.${ident(embed.column)} = ${alias}."uuid" AND ${child}."company_uuid" = ${alias}."company_uuid"), '[]')`,
        ]);
      }
    });
  }
  return concat([
    ...pairs.flatMap(([key, sql], i) => [{ literal: `${i ? ',' : '{'}${JSON.stringify(key)}:` }, { sql }]),
    { literal: '}' },
  ]);
}
