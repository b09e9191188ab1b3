import type { ResourceDefinition } from './resource-definition';

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Quotes an identifier taken from entity metadata (never from a client). */
export function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * Positional parameters for one statement: every client value goes through here, never into the SQL text.
 * A statement whose text is built once per shape and reused (the one-statement writes) takes the values
 * of each later execution from `valuesFor`: `add`ed values stay, `fresh` ones are made again.
 */
export class Params<Input = unknown> {
  readonly values: unknown[] = [];
  private readonly makers: (((input: Input) => unknown) | undefined)[] = [];

  /** `input`: what the values of this execution are made from (see `fresh`). */
  constructor(private readonly input?: Input) {}

  /** A value of the statement, the same in every execution of its shape. */
  add(value: unknown): string {
    this.makers.push(undefined);
    this.values.push(value);
    return `$${this.values.length}`;
  }

  /** A value made for each execution (an id, a time, the client's value of a column): `make` runs now and for every reuse. */
  fresh(make: (input: Input) => unknown): string {
    this.makers.push(make);
    this.values.push(make(this.input as Input));
    return `$${this.values.length}`;
  }

  /** The values of another execution of the same statement text. */
  valuesFor(input: Input): unknown[] {
    return this.makers.map((make, i) => (make ? make(input) : this.values[i]));
  }
}

/** Escapes LIKE wildcards so `%`, `_` and `\` in a search match literally (used with ESCAPE '\'). */
export function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

/** A client value as its column takes it as a parameter (JSON columns take their text). */
export function columnValue(def: ResourceDefinition, column: string, value: unknown): unknown {
  const kind = def.columns.get(column)?.kind;
  return kind === 'json' && value !== null && value !== undefined ? JSON.stringify(value) : value;
}

/** A client value as a parameter of its column. */
export function bind(def: ResourceDefinition, params: Params, column: string, value: unknown): string {
  return params.add(columnValue(def, column, value));
}

/** A column name (from entity metadata, never a client) as a SQL string literal. */
export function literal(name: string): string {
  return `'${name.replace(/'/g, "''")}'`;
}
