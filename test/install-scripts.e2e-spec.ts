import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, runCommand } from './support/processes';

const read = (file: string) => JSON.parse(readFileSync(join(ROOT, file), 'utf8'));

/**
 * npm runs a dependency's install scripts only as package.json's `allowScripts` says, and warns on `npm ci`
 * about every one it does not cover: a fresh clone's install must be quiet, each script decided on.
 */
describe('install scripts: each dependency that has one is allowed or denied in package.json', () => {
  it('every package of the lockfile with an install script has an allowScripts entry', () => {
    const lock = read('package-lock.json') as { packages: Record<string, { hasInstallScript?: boolean }> };
    const withScripts = Object.entries(lock.packages)
      .filter(([, entry]) => entry.hasInstallScript)
      .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));
    expect(withScripts.length).toBeGreaterThan(0);
    // An entry is `name`, or `name@version` pinned to the reviewed version.
    const covered = Object.keys(read('package.json').allowScripts ?? {}).map((key) =>
      key.replace(/(?<=.)@[^/]*$/, ''),
    );
    expect(withScripts.filter((name) => !covered.includes(name))).toEqual([]);
  });

  it('`npm install-scripts ls` finds nothing left to review', async () => {
    const run = runCommand('npm', ['install-scripts', 'ls', '--json'], {});
    const { code } = await run.exited;
    // An npm without allowScripts runs every script and warns about none: the lockfile check above stands.
    if (code !== 0 && /Unknown command/.test(run.output())) return;
    expect({ code, pending: JSON.parse(run.output()).allowScripts }).toEqual({ code: 0, pending: [] });
  }, 60_000);
});
