import { composeWharf, ensurePartitions } from '@wharf/webhooks';
import { AppConfig, ensureDatabase, preflight, redactUrl, runMigrations } from '@wharf/core';
import { Client } from 'pg';

const log = (line: string) => process.stdout.write(`${line}\n`);

/** `migrate`: creates the database when missing and applies every pending migration, naming each. */
export const migrate = (config: AppConfig) => migrateDatabase(config, { names: true });

/**
 * Creates the database when missing and applies every pending migration of core, libraries and extensions.
 * `names: false` (npm start) reports a count only: a first run applies them all, a screenful of names.
 */
export async function migrateDatabase(config: AppConfig, { names }: { names: boolean }): Promise<void> {
  await preflight(config, { databaseMustExist: false });
  if (await ensureDatabase(config.databaseUrl)) log(`Created database ${redactUrl(config.databaseUrl)}`);
  const applied = await runMigrations(config.databaseUrl, composeWharf(config).manifests);
  const count = `Applied ${applied.length} migration${applied.length === 1 ? '' : 's'}`;
  if (!applied.length) log('Database is up to date.');
  else log(names ? `${count}: ${applied.join(', ')}` : `${count}.`);
  // The partitions ahead, as the worker keeps them: inserts never wait for a worker to have run.
  const client = new Client({ connectionString: config.databaseUrl });
  await client.connect();
  try {
    const created = await ensurePartitions(client, config.webhooks.partitionIntervalMs);
    if (created.length) log(`Created ${created.length} partition(s) ahead.`);
  } finally {
    await client.end();
  }
}
