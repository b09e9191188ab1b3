import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ROOT, ensureBuilt, runCommand } from './support/processes';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const stale = require(join(ROOT, 'scripts', 'build-if-stale.js')) as {
  isCurrent: (root?: string) => boolean;
  begin: (root?: string) => void;
  commit: (root?: string) => void;
};

const OUTPUTS = ['dist/apps/cli/src/main.js', 'dist/console/index.html', 'dist/.build-fingerprint'];
const mtimes = () => OUTPUTS.map((file) => statSync(join(ROOT, file)).mtimeMs);

describe('npm run cli', () => {
  beforeAll(() => {
    ensureBuilt();
  }, 300_000);

  it.each(['companies:explode', 'toString', 'constructor'])(
    'an unknown command (%s) says so, prints the usage and exits 2, without rebuilding a current build',
    async (command) => {
      expect(stale.isCurrent()).toBe(true);
      const before = mtimes();
      const run = runCommand('npm', ['run', '--silent', 'cli', '--', command], {});
      const { code } = await run.exited;
      const lines = run.output().split('\n');
      expect({ code, first: lines[0], usage: lines[1] }).toEqual({
        code: 2,
        first: `wharf: unknown command: ${command}`,
        usage: 'usage: wharf <command>',
      });
      expect(mtimes()).toEqual(before);
    },
  );

  it('without a command prints the usage and exits 0', async () => {
    const run = runCommand('npm', ['run', '--silent', 'cli'], {});
    expect({ code: (await run.exited).code, output: run.output() }).toEqual({
      code: 0,
      output: expect.stringMatching(/^usage: wharf <command>\n/),
    });
  });

  it('a source added, removed or edited makes the build stale; a build makes it current', () => {
    const root = mkdtempSync(join(tmpdir(), 'wharf-stale-'));
    try {
      const write = (file: string, text = 'x') => {
        mkdirSync(dirname(join(root, file)), { recursive: true });
        writeFileSync(join(root, file), text);
      };
      for (const file of ['package.json', 'libs/core/src/index.ts', 'apps/cli/src/main.ts']) write(file);
      const build = () => {
        stale.begin(root);
        for (const file of OUTPUTS.slice(0, 2)) write(file);
        write('dist/apps/api/src/main.js');
        stale.commit(root);
      };
      expect(stale.isCurrent(root)).toBe(false);
      build();
      expect(stale.isCurrent(root)).toBe(true);
      write('libs/core/src/added.ts');
      expect(stale.isCurrent(root)).toBe(false);
      rmSync(join(root, 'libs/core/src/added.ts'));
      expect(stale.isCurrent(root)).toBe(true);
      write('apps/cli/src/main.ts', 'edited');
      expect(stale.isCurrent(root)).toBe(false);
      build();
      expect(stale.isCurrent(root)).toBe(true);
      // A build that failed part-way leaves no record: the next check builds again.
      stale.begin(root);
      expect(stale.isCurrent(root)).toBe(false);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
