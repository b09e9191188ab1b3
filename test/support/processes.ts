import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = join(__dirname, '..', '..');
export const CLI = join(ROOT, 'dist', 'apps', 'cli', 'src', 'main.js');

export function assertBuilt(): void {
  if (!existsSync(CLI)) throw new Error('dist/ is missing: run `npm run build` (npm test does it first)');
}

/**
 * Builds dist/ unless it is a build of the sources as they are (scripts/build-if-stale.js, which `npm run cli`
 * runs too): nothing to do after `npm test`'s build, a build in a fresh clone. Suites doing this at once
 * wait for one build.
 */
export function ensureBuilt(): void {
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'build-if-stale.js')], {
    cwd: ROOT,
    stdio: 'inherit',
  });
}

export interface Spawned {
  child: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }>;
}

/** Runs a built entry point of the repo with the given environment, capturing stdout+stderr. */
export function runNode(script: string, args: string[], env: Record<string, string>): Spawned {
  return runCommand(process.execPath, [script, ...args], env);
}

/** Runs a command in `cwd` with the given environment (and PATH, HOME), capturing stdout+stderr. */
export function runCommand(
  command: string,
  args: string[],
  env: Record<string, string>,
  cwd = ROOT,
): Spawned {
  const started = Date.now();
  const child = spawn(command, args, {
    cwd,
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

/** The pids of every process below `pid` (Linux: read from /proc). */
export function descendants(pid: number): number[] {
  const parents = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // pid (comm) state ppid …: comm may hold spaces and parentheses, so read after the last ')'.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)]);
  }
  const found: number[] = [];
  const walk = (parent: number) => {
    for (const child of parents.get(parent) ?? []) {
      found.push(child);
      walk(child);
    }
  };
  walk(pid);
  return found;
}

/** Whether process `pid` still runs (a zombie counts as gone). */
export function running(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return false;
  }
}
