import { TestApi } from './test-app';
import { sql } from './webhooks';

/**
 * Row count and `updated_at` of every table (all companies): equal before and after a request proves the
 * request wrote nothing. Columns a read may touch off the request path (api_keys.last_used_at) are not in it.
 */
export async function dbState(api: TestApi): Promise<Record<string, string>> {
  const tables = await sql(
    api,
    `SELECT table_name AS name, bool_or(column_name = 'updated_at') AS stamped
     FROM information_schema.columns WHERE table_schema = 'public' AND table_name <> 'migrations'
     GROUP BY table_name ORDER BY table_name`,
  );
  const parts = tables.map(
    ({ name, stamped }: { name: string; stamped: boolean }) =>
      `SELECT '${name}' AS name, count(*)::text || ':' || ${
        stamped ? `md5(coalesce(string_agg(updated_at::text, ',' ORDER BY updated_at), ''))` : `''`
      } AS state FROM "${name}"`,
  );
  const rows = await sql(api, parts.join(' UNION ALL '));
  return Object.fromEntries(rows.map((row: { name: string; state: string }) => [row.name, row.state]));
}

/** The field a JSON:API error pointer ends with (`/warehouse/name` and `/data/attributes/name` → `name`). */
export function pointerField(pointer: string | undefined): string | undefined {
  return pointer?.split('/').pop();
}
