import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { CLI, ROOT, assertBuilt, runNode } from './support/processes';
import { BASE_DATABASE_URL } from './support/test-app';

const run = promisify(execFile);

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

/** Replaces each text in a file, failing when one is not there. */
function edit(file: string, replacements: [string, string][]): void {
  let source = readFileSync(file, 'utf8');
  for (const [from, to] of replacements) {
    expect(source).toContain(from);
    source = source.replaceAll(from, to);
  }
  writeFileSync(file, source);
}

describe('extension:new scaffolds a working extension', () => {
  // Inside the repository (test/artifacts is ignored) so the scaffold resolves its packages and formatting.
  const root = join(ROOT, 'test', 'artifacts', `scaffold-${randomBytes(4).toString('hex')}`);
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  /** Runs the scaffold's own e2e test with jest, as `npm test` would once the folder is in extensions/. */
  async function runGenerated(): Promise<{ stdout: string; stderr: string }> {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const e2e = require(join(ROOT, 'jest.config.js')).projects[1];
    const config = {
      ...e2e,
      rootDir: ROOT,
      roots: [join(root, 'test')],
      testPathIgnorePatterns: ['/node_modules/'],
      moduleNameMapper: {
        '^@wharf/depot$': join(root, 'extensions', 'depot', 'src'),
        ...e2e.moduleNameMapper,
      },
    };
    return run(
      process.execPath,
      [
        require.resolve('jest/bin/jest'),
        '--config',
        JSON.stringify(config),
        '--ci',
        '--testTimeout',
        '60000',
      ],
      { cwd: ROOT, env: process.env },
    ).catch((error: { stdout: string; stderr: string }) => error);
  }

  it('writes module, entity, controller, generated migration and an e2e test that passes', async () => {
    assertBuilt();
    cpSync(join(ROOT, 'test', 'support'), join(root, 'test', 'support'), { recursive: true });
    const scaffold = runNode(CLI, ['extension:new', 'depot', '--resource', 'parking-bay', '--root', root], {
      DATABASE_URL: BASE_DATABASE_URL,
      NODE_ENV: 'test',
    });
    expect({ code: (await scaffold.exited).code, output: scaffold.output() }).toEqual({
      code: 0,
      output: expect.stringContaining('Extension "depot" serves /depot/int/v1/parking-bays'),
    });
    expect(filesUnder(join(root, 'extensions', 'depot'))).toEqual([
      'src/depot.extension.ts',
      'src/index.ts',
      expect.stringMatching(/^src\/migrations\/\d{13}-create-parking-bays\.ts$/),
      'src/parking-bays/parking-bay.controller.ts',
      'src/parking-bays/parking-bay.entity.ts',
    ]);

    // Formatted as the repository's lint wants it.
    await run(process.execPath, [require.resolve('prettier/bin/prettier.cjs'), '--check', root], {
      cwd: ROOT,
    });

    expect((await runGenerated()).stderr).toMatch(/Tests:\s+2 passed, 2 total/);
  }, 300_000);

  it('after a required column is added, its test fails showing the 422, and passes once it sends it', async () => {
    const src = join(root, 'extensions', 'depot', 'src');
    const [migration] = readdirSync(join(src, 'migrations'));
    edit(join(src, 'parking-bays', 'parking-bay.entity.ts'), [
      [
        "@Column('varchar') name: string;",
        "@Column('varchar') name: string;\n  @Column('integer') size: number;",
      ],
    ]);
    // Folded into the create migration: this table was never deployed.
    edit(join(src, 'migrations', migration), [
      ['"name" varchar(255) NOT NULL', '"name" varchar(255) NOT NULL, "size" integer NOT NULL'],
    ]);
    const failed = (await runGenerated()).stderr;
    expect(failed).toMatch(/Tests:\s+1 failed, 1 passed, 2 total/);
    expect(failed).toContain('POST /depot/int/v1/parking-bays: expected 201, got 422');
    expect(failed).toContain('"pointer": "/data/attributes/size"');

    // What docs/extensions.md says to do: send the column in the test's create.
    edit(join(root, 'test', 'depot.e2e-spec.ts'), [["{ name: 'First' }", "{ name: 'First', size: 1 }"]]);
    expect((await runGenerated()).stderr).toMatch(/Tests:\s+2 passed, 2 total/);
  }, 300_000);
});
