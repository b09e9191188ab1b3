import { AppConfig, dataSourceOptions, preflight } from '@wharf/core';
import { SealedEndpoint, UnreadableSecretError, composeWharf, openEndpointSecrets } from '@wharf/webhooks';
import { DataSource } from 'typeorm';
import { ParsedArgs } from './args';

const BATCH = 500;

/**
 * `secrets:reencrypt [--json]`: after an APP_KEY rotation (old key in APP_KEY_PREVIOUS), rewrites every
 * webhook secret still encrypted with the previous key under APP_KEY, so APP_KEY_PREVIOUS can be removed.
 * Secrets that no key opens are listed by endpoint; the exit code is then 1.
 */
export async function reencryptSecrets(config: AppConfig, args: ParsedArgs): Promise<void> {
  await preflight(config, { databaseMustExist: true });
  const { manifests } = composeWharf(config);
  const dataSource = new DataSource(dataSourceOptions(config.databaseUrl, manifests));
  await dataSource.initialize();
  const totals = { endpoints: 0, reencrypted: 0, unreadable: [] as string[] };
  try {
    let after = 0;
    for (;;) {
      const rows: (SealedEndpoint & { id: number })[] = await dataSource.query(
        `SELECT id, uuid, secret, previous_secret, previous_secret_expires_at, headers_sealed, auth_sealed, config_sealed
         FROM webhook_endpoints
         WHERE id > $1 ORDER BY id LIMIT ${BATCH}`,
        [after],
      );
      if (!rows.length) break;
      for (const row of rows) {
        totals.endpoints++;
        try {
          const opened = await openEndpointSecrets(row, config, (sql, params) =>
            dataSource.query(sql, params),
          );
          if (opened.rewritten) totals.reencrypted++;
        } catch (error) {
          if (!(error instanceof UnreadableSecretError)) throw error;
          totals.unreadable.push(row.uuid);
        }
      }
      after = rows[rows.length - 1].id;
    }
  } finally {
    await dataSource.destroy();
  }
  if (args.options.json) process.stdout.write(`${JSON.stringify(totals)}\n`);
  else {
    process.stdout.write(
      `${totals.endpoints} webhook endpoints: ${totals.reencrypted} re-encrypted under APP_KEY, ` +
        `${totals.unreadable.length} that no key opens${totals.unreadable.length ? ` (${totals.unreadable.join(', ')})` : ''}\n`,
    );
  }
  if (totals.unreadable.length) process.exitCode = 1;
}
