import { ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import { API_NODE_FLAGS, AppConfig, assertPortFree, redactUrl } from '@wharf/core';
import { seedDemoCompany } from './accounts.command';
import { migrateDatabase } from './migrate.command';

const DIST_APPS = join(__dirname, '..', '..');

/** One-machine setup: create + migrate the database, then run api and worker as two child processes. */
export async function start(config: AppConfig): Promise<void> {
  // Before anything prints: a port in use is one line, not a migration report and a failing api.
  await assertPortFree(config.port, config.host);
  if (config.metricsPort) await assertPortFree(config.metricsPort, config.host, 'METRICS_PORT');
  await migrateDatabase(config, { names: false });
  await seedDemoCompany(config);
  const children: ChildProcess[] = [
    fork(join(DIST_APPS, 'api', 'src', 'main.js'), {
      stdio: 'inherit',
      execArgv: [...process.execArgv, ...API_NODE_FLAGS],
    }),
    fork(join(DIST_APPS, 'worker', 'src', 'main.js'), { stdio: 'inherit' }),
  ];
  const api = `http://localhost:${config.port}`;
  process.stdout.write(
    `Wharf is starting: api on ${api} (health: /health), console on ${api}/console/, worker on ${redactUrl(config.redisUrl)}\n`,
  );

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    for (const child of children) if (child.exitCode === null) child.kill(signal);
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));

  await new Promise<void>((resolve) => {
    let running = children.length;
    for (const child of children) {
      child.on('exit', (code) => {
        if (!stopping && code !== 0) process.exitCode = code ?? 1;
        stop('SIGTERM');
        if (--running === 0) resolve();
      });
    }
  });
}
