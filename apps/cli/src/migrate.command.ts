import { composeWharf } from '@wharf/webhooks';
import { AppConfig, ensureDatabase, preflight, redactUrl, runMigrations } from '@wharf/core';

/** Creates the database when missing and applies every pending migration of core, libraries and extensions. */
const log = (line: string) => process.stdout.write(`${line}\n`);

export async function migrate(config: AppConfig): Promise<void> {
  await preflight(config, { databaseMustExist: false });
  if (await ensureDatabase(config.databaseUrl)) log(`Created database ${redactUrl(config.databaseUrl)}`);
  const applied = await runMigrations(config.databaseUrl, composeWharf(config).manifests);
  log(
    applied.length
      ? `Applied ${applied.length} migration(s): ${applied.join(', ')}`
      : 'Database is up to date.',
  );
}
