import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { AppConfig, resourceOperationId } from '@wharf/core';
import { UsageError } from '../args';
import { ParsedArgs } from '../args';
import { describeApi } from './api-description';
import { emberClientFiles } from './ember-client';
import { typescriptClientFiles } from './typescript-client';

async function writeAll(dir: string, files: Record<string, string>): Promise<void> {
  for (const [name, content] of Object.entries(files)) {
    const path = join(dir, name);
    await mkdir(join(path, '..'), { recursive: true });
    await writeFile(path, content);
  }
  process.stdout.write(`Wrote ${Object.keys(files).length} file(s) to ${dir}\n`);
}

/** `client:typescript [dir]`: the generated part of `@wharf/client` (default clients/typescript/src/generated). */
export async function typescriptClient(config: AppConfig, args: ParsedArgs): Promise<void> {
  const dir = resolve(args.positional[0] ?? 'clients/typescript/src/generated');
  const { document, events, destinationTypes, permissions } = await describeApi(config);
  await writeAll(dir, await typescriptClientFiles(document, events, destinationTypes, permissions));
}

/** `client:ember <dir>`: models, adapters and serializers of every registered resource, into an Ember app. */
export async function emberClient(config: AppConfig, args: ParsedArgs): Promise<void> {
  const dir = args.positional[0];
  if (!dir)
    throw new UsageError('client:ember needs the app directory to write to, e.g. examples/ember-app/app');
  const { document, resources, defaults } = await describeApi(config);
  const listPaths = new Map<string, string>();
  for (const [path, item] of Object.entries(document.paths)) {
    const id = (item.get as { operationId?: string } | undefined)?.operationId;
    if (id) listPaths.set(id, path);
  }
  const located = resources.map((def) => {
    const path = listPaths.get(resourceOperationId('list', def.name));
    if (!path) throw new Error(`No list route found for ${def.name}`);
    return { def, namespace: path.slice(1, -`/${def.path}`.length), defaults: defaults.get(def) ?? {} };
  });
  await writeAll(resolve(dir), emberClientFiles(located));
}
