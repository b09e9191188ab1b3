import type { ResourceDefinition } from './resource-definition';

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Quotes an identifier taken from entity metadata (never from a client). */
export function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** Positional parameters for one statement: every client value goes through here, never into the SQL text. */
export class Params {
  readonly values: unknown[] = [];

  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** Escapes LIKE wildcards so `%`, `_` and `\` in a search match literally (used with ESCAPE '\'). */
export function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

/** A client value as a parameter of its column (JSON columns take their text). */
export function bind(def: ResourceDefinition, params: Params, column: string, value: unknown): string {
  const kind = def.columns.get(column)?.kind;
  return params.add(kind === 'json' && value !== null && value !== undefined ? JSON.stringify(value) : value);
}

/** A column name (from entity metadata, never a client) as a SQL string literal. */
export function literal(name: string): string {
  return `'${name.replace(/'/g, "''")}'`;
}
