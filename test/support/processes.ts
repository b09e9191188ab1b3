import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = join(__dirname, '..', '..');
export const CLI = join(ROOT, 'dist', 'apps', 'cli', 'src', 'main.js');

export function assertBuilt(): void {
  if (!existsSync(CLI)) throw new Error('dist/ is missing: run `npm run build` (npm test does it first)');
}

export interface Spawned {
  child: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }>;
}

/** Runs a built entry point of the repo with the given environment, capturing stdout+stderr. */
export function runNode(script: string, args: string[], env: Record<string, string>): Spawned {
  const started = Date.now();
  const child = spawn(process.execPath, [script, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }>((resolve) =>
    // 'close', not 'exit': by then all of the child's output has been read.
    child.on('close', (code, signal) => resolve({ code, signal, ms: Date.now() - started })),
  );
  return { child, output: () => output, exited };
}
