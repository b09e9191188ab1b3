import { createHash } from 'node:crypto';
import { QueryConfig } from 'pg';

const names = new Map<string, string>();

/** A stable name for a fixed-shape statement, so pg prepares it once per connection. */
export function statementName(sql: string): string {
  let name = names.get(sql);
  if (!name) {
    name = `wharf_${createHash('sha1').update(sql).digest('hex').slice(0, 16)}`;
    names.set(sql, name);
  }
  return name;
}

/** A query config that pg prepares once per connection and then only binds and executes. */
export function prepared(sql: string, values: unknown[] = []): QueryConfig {
  return { name: statementName(sql), text: sql, values };
}
