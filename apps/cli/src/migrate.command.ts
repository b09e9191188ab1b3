import { composeWharf, ensurePartitions } from '@wharf/webhooks';
import { AppConfig, ensureDatabase, preflight, redactUrl, runMigrations } from '@wharf/core';
import { Client } from 'pg';

/** Creates the database when missing and applies every pending migration of core, libraries and extensions. */
const log = (line: string) => process.stdout.write(`${line}\n`);

export async function migrate(config: AppConfig): Promise<void> {
  await preflight(config, { databaseMustExist: false });
  if (await ensureDatabase(config.databaseUrl)) log(`Created database ${redactUrl(config.databaseUrl)}`);
  const applied = await runMigrations(config.databaseUrl, composeWharf(config).manifests);
  // A count: a first run applies them all, and their names are in the migrations table.
  log(
    applied.length
      ? `Applied ${applied.length} migration${applied.length === 1 ? '' : 's'}.`
      : 'Database is up to date.',
  );
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
