import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

/** The webhooks library's own rules about its code, which review alone would not keep. */
const ROOT = __dirname;
const REPO = join(ROOT, '..', '..', '..');

/** The TypeScript files under `dir`, relative to `base`, without the folders named in `skip`. */
function sources(dir: string, base: string, skip: string[] = []): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return skip.includes(entry.name) ? [] : sources(path, base, skip);
    return /\.tsx?$/.test(entry.name) ? [relative(base, path)] : [];
  });
}

const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const code = sources(ROOT, ROOT).filter((file) => !file.endsWith('.spec.ts'));

describe('libs/webhooks/src', () => {
  it('builds no SQL over a table name put together outside store/ (migrations aside)', () => {
    // A table interpolated into a statement: the partition upkeep's, the outbox queue's.
    const templateBuilt = /\b(FROM|INTO|UPDATE|JOIN|TABLE|ONLY|OF)\s+"?\$\{/;
    const outside = code.filter(
      (file) =>
        !file.startsWith('store/') && !file.startsWith('migrations/') && templateBuilt.test(read(file)),
    );
    expect(outside).toEqual([]);
  });

  it('has no file over 200 lines', () => {
    const long = sources(ROOT, ROOT)
      .map((file) => ({ file, lines: read(file).split('\n').length - 1 }))
      .filter(({ lines }) => lines > 200);
    expect(long).toEqual([]);
  });
});

/** Every source of the repository's packages (libs/, apps/, extensions/), specs and migrations aside. */
describe('the tables of the webhook store', () => {
  const STORE = 'libs/webhooks/src/store/';
  const outsideStore = ['libs', 'apps', 'extensions']
    .flatMap((dir) => sources(join(REPO, dir), REPO, ['node_modules', 'dist', 'migrations']))
    .filter((file) => !file.endsWith('.spec.ts'))
    .filter((file) => !file.startsWith(STORE));
  const TABLE = String.raw`webhook_(events|request_logs|deliveries)(_undispatched|_default)?\b`;
  const text = (file: string) => readFileSync(join(REPO, file), 'utf8');

  it('are named in SQL by the store alone: webhook_events, webhook_request_logs, webhook_deliveries', () => {
    const statement = new RegExp(String.raw`\b(FROM|INTO|UPDATE|JOIN|TABLE|ONLY|OF|TRUNCATE)\s+"?${TABLE}`);
    expect(outsideStore.filter((file) => statement.test(text(file)))).toEqual([]);
  });

  it('are given by name (to build a statement, or as an entity) by the store alone', () => {
    // A name as a value: `= 'webhook_events'`, `name: 'webhook_events'`, `@Entity('webhook_request_logs')`.
    const value = new RegExp(String.raw`(=|:|\()\s*['"\`]${TABLE}['"\`]`);
    const named = outsideStore.filter((file) =>
      value.test(text(file).replace(/\/\/[^\n]*|\/\*[\s\S]*?\*\//g, '')),
    );
    expect(named).toEqual([]);
  });
});
