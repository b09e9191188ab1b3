import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { AppConfig, dropDatabase } from '@wharf/core';
import { API_KEY_PREFIX } from '@wharf/accounts';
import { Client } from 'pg';
import { eventually, http } from './support/http';
import { CLI, ROOT, assertBuilt, runNode } from './support/processes';
import { deleteQueueKeys, query, startApi, testConfig, TestApi } from './support/test-app';

const KEY = new RegExp(`^${API_KEY_PREFIX}[0-9A-Za-z]{36}$`);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const PROTECTED = '/int/v1/locations';

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

function cliEnv(config: AppConfig): Record<string, string> {
  return {
    DATABASE_URL: config.databaseUrl,
    REDIS_URL: config.redisUrl,
    QUEUE_PREFIX: config.queuePrefix,
    NODE_ENV: 'test',
  };
}

async function cli(config: AppConfig, ...args: string[]) {
  const run = runNode(CLI, args, cliEnv(config));
  const { code } = await run.exited;
  return { code, output: run.output() };
}

/** The whole output must be exactly one line holding one JSON object. */
function singleJson(output: string): Record<string, any> {
  const lines = output.split('\n').filter((line) => line !== '');
  expect(lines).toHaveLength(1);
  expect(output.endsWith('\n')).toBe(true);
  const parsed = JSON.parse(lines[0]);
  expect(typeof parsed).toBe('object');
  expect(Array.isArray(parsed)).toBe(false);
  return parsed;
}

describe('cli: companies and API keys on a fresh database', () => {
  let config: AppConfig;
  let api: TestApi | undefined;
  let company: { uuid: string; name: string };
  let firstKey: string;

  beforeAll(() => {
    if (!existsSync(CLI)) execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'ignore' });
    assertBuilt();
    // A database that does not exist yet: the CLI creates and migrates it.
    config = testConfig();
  });
  afterAll(async () => {
    if (api) await api.close();
    else {
      await dropDatabase(config.databaseUrl);
      await deleteQueueKeys(config);
    }
  });

  it('companies:create --name "Acme" --json prints exactly {"company":{"uuid","name"},"api_key"}', async () => {
    const { code, output } = await cli(config, 'companies:create', '--name', 'Acme', '--json');
    expect({ code, output }).toEqual({ code: 0, output: expect.any(String) });
    const printed = singleJson(output);
    expect(Object.keys(printed)).toEqual(['company', 'api_key']);
    expect(Object.keys(printed.company)).toEqual(['uuid', 'name']);
    expect(printed.company).toEqual({ uuid: expect.stringMatching(UUID), name: 'Acme' });
    expect(printed.api_key).toMatch(KEY);
    company = printed.company;
    firstKey = printed.api_key;

    const [row] = await query(config, 'SELECT name FROM companies WHERE uuid = $1', [company.uuid]);
    expect(row.name).toBe('Acme');
    // Stored only as its hash.
    const keys = await query(config, 'SELECT * FROM api_keys WHERE company_uuid = $1', [company.uuid]);
    expect(keys).toHaveLength(1);
    expect(keys[0].key_hash).toBe(sha256(firstKey));
    expect(JSON.stringify(keys)).not.toContain(firstKey.slice(API_KEY_PREFIX.length, -4));
  });

  it('the printed key works against an api started on the same database', async () => {
    api = await startApi({ config });
    const ok = await http(api.url, 'GET', PROTECTED, { key: firstKey });
    expect(ok.status).toBe(200);
    const listed = await http(api.url, 'GET', '/int/v1/api-keys', { key: firstKey });
    expect(listed.status).toBe(200);
    expect(listed.body.api_keys).toHaveLength(1);
    expect(listed.body.api_keys[0]).toMatchObject({ last_four: firstKey.slice(-4), revoked_at: null });
    expect((await http(api.url, 'GET', PROTECTED)).status).toBe(401);
  });

  it('api-keys:create --company <uuid> --name ci --json prints {"api_key","uuid"}; the key works', async () => {
    const { code, output } = await cli(
      config,
      'api-keys:create',
      '--company',
      company.uuid,
      '--name',
      'ci',
      '--json',
    );
    expect({ code, output }).toEqual({ code: 0, output: expect.any(String) });
    const printed = singleJson(output);
    expect(Object.keys(printed).sort()).toEqual(['api_key', 'uuid']);
    expect(printed.api_key).toMatch(KEY);
    expect(printed.uuid).toMatch(UUID);
    expect(printed.api_key).not.toBe(firstKey);

    const [row] = await query(config, 'SELECT company_uuid, name, key_hash FROM api_keys WHERE uuid = $1', [
      printed.uuid,
    ]);
    expect(row).toEqual({ company_uuid: company.uuid, name: 'ci', key_hash: sha256(printed.api_key) });
    expect((await http(api!.url, 'GET', PROTECTED, { key: printed.api_key })).status).toBe(200);
  });

  it('api-keys:create without --name makes an unnamed key', async () => {
    const { code, output } = await cli(config, 'api-keys:create', '--company', company.uuid, '--json');
    expect(code).toBe(0);
    const printed = singleJson(output);
    const [row] = await query(config, 'SELECT name FROM api_keys WHERE uuid = $1', [printed.uuid]);
    expect(row.name).toBeNull();
  });

  it('api-keys:revoke <uuid> revokes a key: the api answers 401 with it', async () => {
    const created = singleJson(
      (await cli(config, 'api-keys:create', '--company', company.uuid, '--name', 'doomed', '--json')).output,
    );
    const { code, output } = await cli(config, 'api-keys:revoke', created.uuid);
    expect({ code, output }).toEqual({ code: 0, output: expect.stringContaining(created.uuid) });
    const [row] = await query(config, 'SELECT revoked_at FROM api_keys WHERE uuid = $1', [created.uuid]);
    expect(row.revoked_at).toBeInstanceOf(Date);

    const res = await http(api!.url, 'GET', PROTECTED, { key: created.api_key });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(res.body.errors[0]).toMatchObject({ status: '401' });
    // The company's other keys still work.
    expect((await http(api!.url, 'GET', PROTECTED, { key: firstKey })).status).toBe(200);
  });

  it('a key revoked by the CLI while the api is using it stops working within the 5 s auth cache', async () => {
    const created = singleJson(
      (await cli(config, 'api-keys:create', '--company', company.uuid, '--json')).output,
    );
    expect((await http(api!.url, 'GET', PROTECTED, { key: created.api_key })).status).toBe(200);
    expect((await cli(config, 'api-keys:revoke', created.uuid)).code).toBe(0);
    // From the revocation's commit, not from before a CLI process started (seconds on a busy CI machine).
    const revokedAt = Date.now();
    await eventually(
      async () => (await http(api!.url, 'GET', PROTECTED, { key: created.api_key })).status === 401,
      8_000,
      250,
    );
    expect(Date.now() - revokedAt).toBeLessThan(7_000);
  }, 20_000);

  it('api-keys:revoke with --json prints the revoked key', async () => {
    const created = singleJson(
      (await cli(config, 'api-keys:create', '--company', company.uuid, '--json')).output,
    );
    const { code, output } = await cli(config, 'api-keys:revoke', created.uuid, '--json');
    expect(code).toBe(0);
    expect(singleJson(output)).toEqual({ uuid: created.uuid, revoked_at: expect.any(String) });
  });

  describe('bad usage exits non-zero with one line and changes nothing', () => {
    let before: { companies: number; keys: number; revoked: number };
    const counts = async () => {
      const [row] = await query(
        config,
        `SELECT (SELECT count(*)::int FROM companies) AS companies,
                (SELECT count(*)::int FROM api_keys) AS keys,
                (SELECT count(*)::int FROM api_keys WHERE revoked_at IS NOT NULL) AS revoked`,
      );
      return row as { companies: number; keys: number; revoked: number };
    };
    beforeAll(async () => {
      before = await counts();
    });
    afterAll(async () => {
      expect(await counts()).toEqual(before);
    });

    it.each([
      ['companies:create without --name', ['companies:create', '--json'], /--name/],
      ['companies:create --name without a value', ['companies:create', '--name'], /--name/],
      ['companies:create --name ""', ['companies:create', '--name', '', '--json'], /--name/],
      ['api-keys:create without --company', ['api-keys:create', '--name', 'x', '--json'], /--company/],
      [
        'api-keys:create for an unknown company',
        ['api-keys:create', '--company', '00000000-0000-4000-8000-000000000000', '--json'],
        /00000000-0000-4000-8000-000000000000/,
      ],
      ['api-keys:create --company not-a-uuid', ['api-keys:create', '--company', 'acme', '--json'], /acme/],
      ['api-keys:revoke without a uuid', ['api-keys:revoke'], /uuid/],
      [
        'api-keys:revoke of an unknown key',
        ['api-keys:revoke', '00000000-0000-4000-8000-000000000000'],
        /00000000-0000-4000-8000-000000000000/,
      ],
      ['api-keys:revoke not-a-uuid', ['api-keys:revoke', 'nope'], /nope/],
    ])('%s', async (_label, args, mentions) => {
      const { code, output } = await cli(config, ...args);
      expect(code).not.toBe(0);
      expect(code).not.toBeNull();
      const lines = output.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(mentions);
      expect(lines[0]).not.toMatch(/\bat \S+ \(|Error:/);
    });

    it('an unknown command exits non-zero', async () => {
      const { code, output } = await cli(config, 'companies:explode');
      expect(code).not.toBe(0);
      expect(output).toMatch(/usage/);
    });
  });
});

describe('cli: companies:create on an existing but empty database', () => {
  it('migrates it first instead of failing', async () => {
    assertBuilt();
    const config = testConfig();
    const admin = new URL(config.databaseUrl);
    const name = admin.pathname.slice(1);
    admin.pathname = '/postgres';
    const client = new Client({ connectionString: admin.toString() });
    await client.connect();
    await client.query(`CREATE DATABASE "${name}"`);
    await client.end();
    try {
      const { code, output } = await cli(config, 'companies:create', '--name', 'Empty Co', '--json');
      expect({ code, output }).toEqual({ code: 0, output: expect.any(String) });
      expect(singleJson(output).company.name).toBe('Empty Co');
    } finally {
      await dropDatabase(config.databaseUrl);
    }
  });
});
