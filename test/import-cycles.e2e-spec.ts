import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const SCRIPT = join(__dirname, '..', 'scripts', 'check-cycles.js');

/** Runs the check `npm run lint` runs, on `dir`: its exit code and what it printed. */
async function check(dir?: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run('node', [SCRIPT, ...(dir ? [dir] : [])], {
      cwd: join(__dirname, '..'),
    });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

describe('npm run lint: import cycles', () => {
  let dir: string;
  const write = (file: string, text: string) => {
    mkdirSync(join(dir, file, '..'), { recursive: true });
    writeFileSync(join(dir, file), text);
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'wharf-cycles-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('passes on libs/webhooks/src as it is', async () => {
    expect(await check()).toEqual({ code: 0, output: expect.stringContaining('no import cycles') });
  });

  it('fails on two files that import each other', async () => {
    write('store/a.ts', "import { b } from './b';\nexport const a = () => b;\n");
    write('store/b.ts', "import { a } from './a';\nexport const b = () => a;\n");
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
});
