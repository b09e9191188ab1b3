import { createHash } from 'node:crypto';
import { QueryConfig } from 'pg';

const names = new Map<string, string>();

/**
 * How many statement shapes get a name. pg keeps every named statement for the life of its connection, and a
 * write's shape follows the columns a client sends: past this many, a new shape runs unnamed (parsed each
 * time) instead of growing every connection's memory at a client's will.
 */
export const MAX_NAMED_STATEMENTS = 500;

/** A stable name for a fixed-shape statement, so pg prepares it once per connection; undefined once the names run out. */
export function statementName(sql: string): string | undefined {
  let name = names.get(sql);
  if (!name && names.size < MAX_NAMED_STATEMENTS) {
    name = `wharf_${createHash('sha1').update(sql).digest('hex').slice(0, 16)}`;
    names.set(sql, name);
  }
  return name;
}

/** A query config that pg prepares once per connection and then only binds and executes. */
export function prepared(sql: string, values: unknown[] = []): QueryConfig {
  const name = statementName(sql);
  return name ? { name, text: sql, values } : { text: sql, values };
}
