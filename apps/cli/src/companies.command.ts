import { AppConfig } from '@wharf/core';
import { COMPANY_STORE_TABLES, companyStoreRows, deleteCompanyStoreRows } from '@wharf/webhooks';
import { Client } from 'pg';
import { UsageError } from './args';
import { ParsedArgs } from './args';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Every table (partitioned parents, not their partitions) with a company_uuid column. */
async function companyTables(client: Client): Promise<string[]> {
  const { rows } = await client.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
     JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE a.attname = 'company_uuid' AND NOT a.attisdropped AND c.relkind IN ('r', 'p') AND NOT c.relispartition
       AND n.nspname = current_schema() ORDER BY 1`,
  );
  return rows.map((row) => row.name);
}

/** Every table with a company_uuid column but the webhook store's, which counts and deletes its own. */
async function otherTables(client: Client): Promise<string[]> {
  return (await companyTables(client)).filter((table) => !COMPANY_STORE_TABLES.includes(table));
}

/** How many rows of each table but the webhook store's belong to the company. */
async function otherRows(client: Client, company: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of await otherTables(client)) {
    const text = `SELECT count(*)::int AS n FROM "${table}" WHERE company_uuid = $1`;
    counts[table] = (await client.query<{ n: number }>(text, [company])).rows[0].n;
  }
  return counts;
}

/** How many rows of each table belong to the company (the webhook store's tables counted by the store). */
export async function companyRows(client: Client, company: string): Promise<Record<string, number>> {
  return { ...(await otherRows(client, company)), ...(await companyStoreRows(client, company)) };
}

/**
 * `companies:delete <uuid> [--dry-run]`: removes a company and every row it owns, in one transaction. The
 * company's row goes first and its foreign keys cascade (endpoints take their deliveries and request log);
 * a table with rows left (no key to the company) is then emptied of them. `--dry-run` prints the counts
 * and changes nothing. Prints one JSON object: the rows of each table that were (or would be) removed.
 */
export async function deleteCompany(config: AppConfig, args: ParsedArgs): Promise<void> {
  const company = args.positional[0];
  if (!company || !UUID.test(company)) throw new UsageError('companies:delete needs a company uuid');
  const client = new Client({ connectionString: config.databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query('SELECT 1 FROM companies WHERE uuid = $1', [company]);
    if (!rows.length) throw new UsageError(`no company ${company}`);
    const counts = { companies: 1, ...(await companyRows(client, company)) };
    if (args.options['dry-run'] !== true) {
      await client.query('BEGIN');
      try {
        await client.query('DELETE FROM companies WHERE uuid = $1', [company]);
        for (const [table, n] of Object.entries(await otherRows(client, company))) {
          if (n) await client.query(`DELETE FROM "${table}" WHERE company_uuid = $1`, [company]);
        }
        await deleteCompanyStoreRows(client, company);
        const after = await companyRows(client, company);
        const remaining = Object.entries(after).filter(([, n]) => n > 0);
        if (remaining.length) throw new Error(`rows left after the delete: ${JSON.stringify(remaining)}`);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      }
    }
    process.stdout.write(
      `${JSON.stringify({ company, dry_run: args.options['dry-run'] === true, rows: counts })}\n`,
    );
  } finally {
    await client.end();
  }
}
