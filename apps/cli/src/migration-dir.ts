import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Where a module of this repository keeps its migrations: a bundled library's (core, locations, accounts,
 * webhooks) under libs/, an extension's under extensions/.
 */
export function repositoryMigrationsDir(root: string, module: string): string {
  const library = join(root, 'libs', module);
  return join(existsSync(library) ? library : join(root, 'extensions', module), 'src', 'migrations');
}
