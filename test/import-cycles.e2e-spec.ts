import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import madge from 'madge';
import { ROOT, runNode } from './support/processes';

const SCRIPT = join(ROOT, 'scripts', 'check-cycles.js');

/** Runs the check `npm run lint` runs, on `dirs` (default: every package): its exit code and what it printed. */
async function check(...dirs: string[]): Promise<{ code: number | null; output: string }> {
  const run = runNode(SCRIPT, dirs, {});
  const { code } = await run.exited;
  return { code, output: run.output() };
}

describe('npm run lint: import cycles', () => {
  let dir: string;
  const write = (file: string, text: string) => {
    mkdirSync(join(dir, file, '..'), { recursive: true });
    writeFileSync(join(dir, file), text);
  };
  /** A copy of a package's src to plant a cycle in. */
  const copy = (pkg: string) => cpSync(join(ROOT, pkg), dir, { recursive: true });

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'wharf-cycles-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('passes on every package as it is: libs, apps and extensions', async () => {
    const { code, output } = await check();
    expect({ code, output }).toEqual({ code: 0, output: expect.stringContaining('no import cycles') });
    for (const pkg of ['libs/core/src', 'libs/webhooks/src', 'libs/accounts/src', 'apps/api/src'])
      expect(output).toContain(pkg);
    expect(output).toContain('extensions/fleet/src');
  });

  it('fails on two files that import each other', async () => {
    write('store/a.ts', "import { b } from './b';\nexport const a = () => b;\n");
    write('store/b.ts', "import { a } from './a';\nexport const b = () => a;\n");
    expect(await check(dir)).toEqual({ code: 1, output: expect.stringContaining('import cycle') });
  });

  it('counts a type-only import', async () => {
    write('store/a.ts', "import type { B } from './b';\nexport type A = { b?: B };\n");
    write('store/b.ts', "import type { A } from './a';\nexport type B = { a?: A };\n");
    expect(await check(dir)).toEqual({ code: 1, output: expect.stringContaining('import cycle') });
  });

  it('fails on two folders that depend on each other through different files', async () => {
    write('store/row.ts', 'export const row = 1;\n');
    write('store/writer.ts', "import { stage } from '../stages/stage';\nexport const writer = stage;\n");
    write('stages/stage.ts', 'export const stage = 1;\n');
    write('stages/reader.ts', "import { row } from '../store/row';\nexport const reader = row;\n");
    const { code, output } = await check(dir);
    expect(code).toBe(1);
    expect(output).toMatch(/folder cycle in .*: stages <> store/);
    expect(output).not.toContain('import cycle');
  });

  it('fails on a lower layer of libs/core that imports a higher one', async () => {
    copy('libs/core/src');
    expect((await check(dir)).code).toBe(0);
    write(
      'config/planted.ts',
      "import { composeHost } from '../host/host';\nexport const planted = composeHost;\n",
    );
    const { code, output } = await check(dir);
    expect(code).toBe(1);
    expect(output).toMatch(/folder cycle in .*: .*config <> .*host/);
  });

  it('fails on a cycle planted in extensions/fleet, while its entities may name each other both ways', async () => {
    copy('extensions/fleet/src');
    expect((await check(dir)).code).toBe(0);
    write(
      'drivers/planted.ts',
      "import { Order } from '../orders/order.entity';\nexport const planted = Order;\n",
    );
    write(
      'orders/order.dto.ts',
      "import { planted } from '../drivers/planted';\nexport const again = planted;\n" +
        readFileSync(join(dir, 'orders/order.dto.ts'), 'utf8'),
    );
    const { code, output } = await check(dir);
    expect(code).toBe(1);
    expect(output).toMatch(/folder cycle in .*: drivers <> orders/);
  });
});

describe('the kernel', () => {
  it('imports no other package of the repository: management and libraries import it, never the reverse', async () => {
    const graph = await madge(join(ROOT, 'libs/core/src'), {
      fileExtensions: ['ts'],
      excludeRegExp: [/\.spec\.ts$/],
      tsConfig: join(ROOT, 'tsconfig.json'),
      baseDir: ROOT,
    });
    const kernel = Object.entries(graph.obj()).filter(([file]) => file.startsWith('libs/core/src/'));
    const outside = kernel.flatMap(([file, deps]) =>
      deps.filter((dep) => !dep.startsWith('libs/core/src/')).map((dep) => `${file} -> ${dep}`),
    );
    expect(outside).toEqual([]);
    expect(kernel.length).toBeGreaterThan(50);
  });
});
