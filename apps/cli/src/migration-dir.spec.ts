import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { repositoryMigrationsDir } from './migration-dir';

const ROOT = join(__dirname, '..', '..', '..');

describe("migration:generate writes a bundled module's migration where its others are", () => {
  it.each([
    ['core', 'libs/core/src/migrations'],
    ['locations', 'libs/locations/src/migrations'],
    ['accounts', 'libs/accounts/src/migrations'],
    ['webhooks', 'libs/webhooks/src/migrations'],
    ['inventory', 'extensions/inventory/src/migrations'],
    ['fleet', 'extensions/fleet/src/migrations'],
  ])('%s: %s', (module, dir) => {
    expect(repositoryMigrationsDir(ROOT, module)).toBe(join(ROOT, dir));
    expect(existsSync(join(ROOT, dir))).toBe(true);
  });
});
