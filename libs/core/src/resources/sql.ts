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
