import { existsSync, mkdirSync, readFileSync, readdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DELIVERY_STATEMENTS } from './statements';

const DIR = join(__dirname, 'snapshots');
const UPDATE = process.env.UPDATE_SQL_SNAPSHOTS === '1';
const file = (name: string) => join(DIR, `${name}.sql`);
/** The snapshot of a statement: its exact text, then a newline. */
const snapshot = (sql: string) => `${sql.trim()}\n`;
const stale = () => readdirSync(DIR).filter((name) => !(name.replace(/\.sql$/, '') in DELIVERY_STATEMENTS));

describe("the delivery store's SQL, as snapshots a reviewer reads", () => {
  if (UPDATE) {
    mkdirSync(DIR, { recursive: true });
    for (const name of stale()) unlinkSync(join(DIR, name));
    for (const [name, sql] of Object.entries(DELIVERY_STATEMENTS)) writeFileSync(file(name), snapshot(sql));
  }

  it.each(Object.entries(DELIVERY_STATEMENTS))('%s matches snapshots/%s.sql', (name, sql) => {
    expect(existsSync(file(name))).toBe(true);
    // Run `npm run sql:snapshots` after changing a statement, and review the diff of its snapshot.
    expect(readFileSync(file(name), 'utf8')).toBe(snapshot(sql));
  });

  it('registers every statement of the store (an exported string that is a whole statement)', async () => {
    const registered = new Set(Object.values(DELIVERY_STATEMENTS));
    const modules = readdirSync(__dirname).filter((name) => name.endsWith('.sql.ts'));
    const exported = (await Promise.all(modules.map((name) => import(join(__dirname, name))))).flatMap(
      (module: Record<string, unknown>) => Object.entries(module),
    );
    const statements = exported.filter(
      ([, value]) => typeof value === 'string' && /^\s*(WITH|SELECT|INSERT|UPDATE|DELETE)\b/i.test(value),
    );
    expect(statements.filter(([, sql]) => !registered.has(sql as string)).map(([name]) => name)).toEqual([]);
    expect(statements.length).toBe(registered.size);
  });

  it('has no snapshot of a statement that is gone', () => {
    expect(stale()).toEqual([]);
  });
});
