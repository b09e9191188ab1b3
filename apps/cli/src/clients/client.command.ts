import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { AppConfig } from '@wharf/core';
import { ParsedArgs } from '../args';
import { describeApi } from './api-description';
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
  const { document, events } = await describeApi(config);
  await writeAll(dir, await typescriptClientFiles(document, events));
}
