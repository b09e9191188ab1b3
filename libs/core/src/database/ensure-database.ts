import { Client } from 'pg';

/** Creates the database named in the URL when it does not exist yet (connecting to the server's `postgres` db). */
export async function ensureDatabase(databaseUrl: string): Promise<boolean> {
  const target = new URL(databaseUrl);
  const name = decodeURIComponent(target.pathname.replace(/^\//, ''));
  if (!name) throw new Error('DATABASE_URL names no database');
  const admin = new URL(databaseUrl);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString(), connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount) return false;
    await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
    return true;
  } catch (error) {
    // Two processes racing to create it: the loser sees duplicate_database, which is fine.
    if ((error as { code?: string }).code === '42P04') return false;
    throw error;
  } finally {
    await client.end();
  }
}

/** Drops a database (tests and benchmarks only), terminating leftover connections first. */
export async function dropDatabase(databaseUrl: string): Promise<void> {
  const name = decodeURIComponent(new URL(databaseUrl).pathname.replace(/^\//, ''));
  const admin = new URL(databaseUrl);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${name.replace(/"/g, '""')}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}
