import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { AppConfig, dropDatabase } from '@wharf/core';
import { Client } from 'pg';
import { eventually, http } from './support/http';
import { CLI, ROOT, Spawned, assertBuilt, runNode } from './support/processes';
import { deleteQueueKeys, testConfig } from './support/test-app';

const run = promisify(execFile);
const API = join(ROOT, 'dist', 'apps', 'api', 'src', 'main.js');
const EXAMPLE = join(ROOT, 'examples', 'extension-package');
const Y = '/acme-yards/int/v1/yards';

/** npm as an extension author runs it, from the package cache when it can (CI has it warm after `npm ci`). */
async function npm(cwd: string, ...args: string[]): Promise<string> {
  const { stdout } = await run('npm', [...args, '--prefer-offline', '--no-audit', '--no-fund'], {
    cwd,
    env: { ...process.env, npm_config_loglevel: 'error' },
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout;
}

function version(pkg: string): string {
  return JSON.parse(readFileSync(join(ROOT, 'node_modules', pkg, 'package.json'), 'utf8')).version;
}

async function outbox(config: AppConfig): Promise<string[]> {
  const client = new Client({ connectionString: config.databaseUrl });
  await client.connect();
  try {
    return (await client.query('SELECT "name" FROM "webhook_events" ORDER BY "id"')).rows.map((r) => r.name);
  } finally {
    await client.end();
  }
}

describe('examples/extension-package: an extension as its own npm package, installed outside the repo', () => {
  const temp = mkdtempSync(join(tmpdir(), 'wharf-extension-package-'));
  const source = join(temp, 'source');
  const site = join(temp, 'site');
  let config: AppConfig;
  let api: Spawned | undefined;
  let url: string;
  let key: string;

  beforeAll(async () => {
    assertBuilt();
    // 1. The SDK: @wharf/core with type declarations, packed as an npm tarball.
    const sdk = (await run(process.execPath, [join(ROOT, 'scripts', 'build-sdk.js')], { cwd: ROOT })).stdout
      .trim()
      .split('\n')
      .pop()!;

    // 2. The extension builds on its own against the SDK tarball (its dev dependency), then packs.
    cpSync(EXAMPLE, source, {
      recursive: true,
      filter: (path) => !/[/\\](node_modules|dist)([/\\]|$)/.test(path.slice(EXAMPLE.length)),
    });
    const manifest = JSON.parse(readFileSync(join(source, 'package.json'), 'utf8'));
    manifest.devDependencies['@wharf/core'] = `file:${sdk}`;
    writeFileSync(join(source, 'package.json'), JSON.stringify(manifest, null, 2));
    await npm(source, 'install');
    const tarball = join(source, (await npm(source, 'pack', '--silent')).trim().split('\n').pop()!);

    // 3. A deployment installs it (peers are the host's), plus its own typeorm and class-validator copies:
    //    the host must hand the extension its single copies regardless.
    mkdirSync(site);
    writeFileSync(
      join(site, 'package.json'),
      JSON.stringify({ name: 'site', version: '1.0.0', private: true }),
    );
    await npm(
      site,
      'install',
      tarball,
      `typeorm@${version('typeorm')}`,
      `class-validator@${version('class-validator')}`,
      '--legacy-peer-deps',
    );

    // 4. The host loads it by path next to the bundled extensions: migrate, then serve.
    const extensions = `inventory,fleet,${join(site, 'node_modules', '@acme', 'wharf-yards')}`;
    config = testConfig({ EXTENSIONS: extensions });
    const env = {
      DATABASE_URL: config.databaseUrl,
      REDIS_URL: config.redisUrl,
      QUEUE_PREFIX: config.queuePrefix,
      NODE_ENV: 'test',
      EXTENSIONS: extensions,
    };
    const migrate = runNode(CLI, ['migrate'], env);
    expect({ exit: (await migrate.exited).code, output: migrate.output() }).toEqual({
      exit: 0,
      output: expect.stringContaining('CreateYards1800000100000'),
    });
    const company = runNode(CLI, ['companies:create', '--name', 'Acme', '--json'], env);
    expect((await company.exited).code).toBe(0);
    key = JSON.parse(company.output()).api_key;

    api = runNode(API, [], { ...env, PORT: '0', LOG_LEVEL: 'info' });
    const port = await eventually(
      async () => api!.output().match(/Server listening at http:\/\/[^\s"]+:(\d+)/)?.[1],
      60_000,
    );
    url = `http://127.0.0.1:${port}`;
  }, 600_000);

  afterAll(async () => {
    api?.child.kill('SIGTERM');
    await api?.exited;
    if (config) {
      await dropDatabase(config.databaseUrl);
      await deleteQueueKeys(config);
    }
    rmSync(temp, { recursive: true, force: true });
  });

  it('serves its routes with validation, its custom route, its migration and its event', async () => {
    const call = (method: string, path: string, body?: unknown) => http(url, method, path, { key, body });

    const created = await call('POST', Y, { yard: { name: 'North', slots: 4 } });
    expect(created.status).toBe(201);
    const yard = created.body.yard;
    expect(yard).toMatchObject({ name: 'North', slots: 4, closed: false });

    // class-validator rules of the extension's DTO apply: one copy of class-validator
    const invalid = await call('POST', Y, { yard: { name: 'South', slots: -1, colour: 'red' } });
    expect(invalid.status).toBe(422);
    expect(invalid.body.errors.map((e: any) => e.source.pointer).sort()).toEqual([
      '/data/attributes/colour',
      '/data/attributes/slots',
    ]);

    expect((await call('GET', `${Y}?query=nor`)).body.yards).toEqual([yard]);
    const closed = await call('POST', `${Y}/${yard.uuid}/close`);
    expect(closed.status).toBe(200);
    expect(closed.body.yard).toMatchObject({ uuid: yard.uuid, closed: true });
    expect((await call('GET', `${Y}/${yard.uuid}`)).body.yard.closed).toBe(true);

    expect(await outbox(config)).toEqual(['yard.created', 'yard.updated', 'yard.closed']);
    const catalog = await call('GET', '/int/v1/webhook-events');
    expect(catalog.status).toBe(200);
    expect(JSON.stringify(catalog.body)).toContain('"yard.closed"');

    // next to the bundled extensions
    expect((await call('GET', '/inventory/int/v1/warehouses')).status).toBe(200);
    expect((await call('GET', '/fleet/int/v1/orders')).status).toBe(200);
  });
});
