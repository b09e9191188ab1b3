import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { createApi } from '@wharf/api';
import {
  deleteKeysWithPrefix,
  dropDatabase,
  ensureDatabase,
  loadConfig,
  parseDuration,
  runMigrations,
} from '@wharf/core';
import { AccountsService } from '@wharf/accounts';
import { composeWharf } from '@wharf/webhooks';
import { Pool } from 'pg';
import { seedCompany } from './fuzz-seed';
import { FuzzReport, fuzz } from './openapi-fuzzer';

/**
 * `npm run fuzz [-- --seed N] [--requests N] [--time 30m]`: boots the api in production mode (strict target
 * policy, so no test or verify send leaves the machine) on a fresh database with two seeded companies,
 * fuzzes every operation of /docs-json and prints the totals; exits 1 when a property failed. Rerun with the
 * printed seed to replay the same requests.
 */
function option(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

async function main(): Promise<void> {
  const seed = Number(option('seed') ?? process.env.FUZZ_SEED ?? randomBytes(4).readInt32LE());
  const requests = Number(option('requests') ?? process.env.FUZZ_REQUESTS ?? 20_000);
  const timeLimitMs = parseDuration(option('time') ?? process.env.FUZZ_TIME ?? '30m');
  const id = `${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const database = new URL(process.env.FUZZ_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  database.pathname = `/wharf_fuzz_${id}`;
  const config = loadConfig({
    NODE_ENV: 'production',
    APP_KEY: randomBytes(32).toString('base64'),
    DATABASE_URL: database.toString(),
    REDIS_URL: process.env.FUZZ_REDIS_URL ?? 'redis://127.0.0.1:6379',
    QUEUE_PREFIX: `wharf-fuzz-${id}`,
    LOG_LEVEL: 'error',
    WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'false',
    RATE_LIMIT_PER_MINUTE: '100000000',
  });
  process.stdout.write(`fuzz: seed ${seed}, up to ${requests} requests or ${timeLimitMs / 1000} s\n`);
  await ensureDatabase(config.databaseUrl);
  await runMigrations(config.databaseUrl, composeWharf(config).manifests);
  const app = await createApi(config);
  const pool = new Pool({ connectionString: config.databaseUrl, max: 2 });
  let report: FuzzReport | undefined;
  try {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const baseUrl = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;
    const accounts = app.get(AccountsService);
    const [a, b] = await Promise.all([accounts.createCompany('Fuzz A'), accounts.createCompany('Fuzz B')]);
    const target = {
      baseUrl,
      companies: [
        { uuid: a.company.uuid, key: a.api_key },
        { uuid: b.company.uuid, key: b.api_key },
      ] as [{ uuid: string; key: string }, { uuid: string; key: string }],
      query: async (sql: string, params: unknown[] = []) => (await pool.query(sql, params)).rows,
    };
    for (const company of target.companies) await seedCompany(target, company, config.appKey);
    report = await fuzz(target, {
      seed,
      requests,
      timeLimitMs,
      progressEvery: 1000,
      onProgress: (r) =>
        process.stdout.write(
          `fuzz: ${r.requests} requests, ${r.failures.length} failures, ${Math.round(r.elapsedMs / 1000)} s\n`,
        ),
    });
  } finally {
    await app.close();
    await pool.end();
    await dropDatabase(config.databaseUrl);
    await deleteKeysWithPrefix(config.redisUrl, config.queuePrefix);
  }
  for (const failure of report.failures.slice(0, 50)) {
    process.stdout.write(
      `FAIL [${failure.property}] ${failure.status} ${failure.request}\n  ${failure.detail}\n`,
    );
  }
  const { failures, ...totals } = report;
  process.stdout.write(`${JSON.stringify({ ...totals, failures: failures.length })}\n`);
  if (failures.length) {
    process.stdout.write(`fuzz: ${failures.length} failures; replay with npm run fuzz -- --seed ${seed}\n`);
    process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`fuzz: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
