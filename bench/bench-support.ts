import { ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createApi } from '@wharf/api';
import {
  API_NODE_FLAGS,
  AppConfig,
  deleteKeysWithPrefix,
  dropDatabase,
  ensureDatabase,
  loadConfig,
  runMigrations,
} from '@wharf/core';
import { AccountsService } from '@wharf/accounts';
import { composeWharf } from '@wharf/webhooks';

export const DIST_APPS = join(__dirname, '..', 'apps');

/** A production-mode configuration on its own database and queue prefix. */
export function benchConfig(env: Record<string, string> = {}): {
  config: AppConfig;
  env: Record<string, string>;
} {
  const id = `${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const base = new URL(process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  base.pathname = `/wharf_bench_${id}`;
  const full = {
    NODE_ENV: 'production',
    APP_KEY: randomBytes(32).toString('base64'),
    DATABASE_URL: base.toString(),
    REDIS_URL: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
    QUEUE_PREFIX: `wharf-bench-${id}`,
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true',
    RATE_LIMIT_PER_MINUTE: '100000000',
    ...env,
  };
  return { config: loadConfig(full), env: full };
}

export async function prepare(config: AppConfig) {
  await ensureDatabase(config.databaseUrl);
  await runMigrations(config.databaseUrl, composeWharf(config).manifests);
}

export async function startBenchApi(config: AppConfig) {
  const app = await createApi(config);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;
  const company = await app.get(AccountsService).createCompany('Bench');
  return { app, url, company };
}

const children = new Set<ChildProcess>();
// A benchmark that fails half-way must not leave its api or worker running.
process.on('exit', () => children.forEach((child) => child.kill('SIGKILL')));

/** Forks a script with extra env; it is killed if the benchmark exits first. */
export function forkScript(
  script: string,
  env: Record<string, string>,
  execArgv: string[] = process.execArgv,
): ChildProcess {
  const child = fork(script, [], { env: { ...process.env, ...env }, stdio: 'inherit', execArgv });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

export function startProcess(app: 'api' | 'worker', env: Record<string, string>): ChildProcess {
  // BENCH_API_SCRIPT / BENCH_WORKER_SCRIPT swap in a wrapper (e.g. one that writes a CPU profile).
  return forkScript(
    process.env[`BENCH_${app.toUpperCase()}_SCRIPT`] ?? join(DIST_APPS, app, 'src', 'main.js'),
    env,
    app === 'api' ? [...process.execArgv, ...API_NODE_FLAGS] : process.execArgv,
  );
}

export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** Creates and migrates the bench database, runs `bench`, then drops the database and queue keys, even on failure. */
export async function withBenchDatabase(config: AppConfig, bench: () => Promise<void>): Promise<void> {
  await prepare(config);
  try {
    await bench();
  } finally {
    await cleanup(config);
  }
}

export async function cleanup(config: AppConfig) {
  await dropDatabase(config.databaseUrl);
  await deleteKeysWithPrefix(config, config.queuePrefix);
}

export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** The middle of `values` (the upper one of an even count). */
export function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `url` answers below 500 (a process just started), for up to 20 s. */
export async function waitFor(url: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const ok = await fetch(url).then(
      (r) => r.status < 500,
      () => false,
    );
    if (ok) return;
    await sleep(200);
  }
  throw new Error(`${url} did not come up`);
}
