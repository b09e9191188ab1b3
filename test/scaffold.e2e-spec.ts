import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, readdirSync, rmSync } from 'node:fs';
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

describe('extension:new scaffolds a working extension', () => {
  // Inside the repository (test/artifacts is ignored) so the scaffold resolves its packages and formatting.
  const root = join(ROOT, 'test', 'artifacts', `scaffold-${randomBytes(4).toString('hex')}`);
  afterAll(() => rmSync(root, { recursive: true, force: true }));

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

    // Its own e2e test, run by jest as `npm test` would once the folder is in extensions/.
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
    const jest = await run(
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
    expect(jest.stderr).toMatch(/Tests:\s+2 passed, 2 total/);
  }, 300_000);
});
