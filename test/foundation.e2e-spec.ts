import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Body, Controller, Post } from '@nestjs/common';
import { Extension, Public, dropDatabase } from '@wharf/core';
import { freePort } from './support/ports';
import { startOwnRedis } from './support/redis';
import { createCompany } from './support/accounts';
import { OwnPostgres } from './support/own-postgres';
import { warehouse } from './support/webhooks';
import { eventually, http } from './support/http';
import { CLI, ROOT, assertBuilt, descendants, runCommand, runNode, running } from './support/processes';
import {
  BASE_DATABASE_URL,
  REDIS_URL,
  TestApi,
  deleteQueueKeys,
  startApi,
  testConfig,
} from './support/test-app';

@Public()
@Controller('echo')
class EchoController {
  @Post()
  echo(@Body() body: unknown) {
    return { echo: body };
  }
}

@Extension({ name: 'echo', entities: [], controllers: [EchoController] })
class EchoExtension {}

function expectErrorFormat(body: any, status: number) {
  expect(body).toEqual({
    errors: [
      expect.objectContaining({
        status: String(status),
        code: expect.any(String),
        title: expect.any(String),
        detail: expect.any(String),
      }),
    ],
  });
}

describe('foundation: HTTP conventions', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startApi({ extensions: [EchoExtension] });
  });
  afterAll(() => api.close());

  it('GET /health is 200 with both checks up, without auth', async () => {
    const res = await http(api.url, 'GET', '/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', checks: { database: 'up', redis: 'up' } });
  });

  it('an unknown route is a 404 in the error format, with an x-request-id header', async () => {
    const res = await http(api.url, 'GET', '/no/such/route');
    expect(res.status).toBe(404);
    expectErrorFormat(res.body, 404);
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('echoes a well-formed client request id', async () => {
    const res = await http(api.url, 'GET', '/health', { headers: { 'x-request-id': 'trace-abc.123' } });
    expect(res.headers.get('x-request-id')).toBe('trace-abc.123');
  });

  it('accepts JSON on the extension namespace route', async () => {
    const res = await http(api.url, 'POST', '/echo/int/v1/echo', { body: { a: 1 } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ echo: { a: 1 } });
  });

  it('malformed JSON is a 400', async () => {
    const res = await http(api.url, 'POST', '/echo/int/v1/echo', {
      raw: '{"a": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expectErrorFormat(res.body, 400);
  });

  it('a non-JSON content type is a 415', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      const res = await http(api.url, 'POST', '/echo/int/v1/echo', {
        raw: 'a=1',
        headers: { 'content-type': type },
      });
      expect(res.status).toBe(415);
      expectErrorFormat(res.body, 415);
    }
  });

  it('a 2 MiB body is a 413', async () => {
    const big = JSON.stringify({ blob: 'x'.repeat(2 * 1024 * 1024) });
    const res = await http(api.url, 'POST', '/echo/int/v1/echo', {
      raw: big,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(413);
    expectErrorFormat(res.body, 413);
  });
});

describe('foundation: health while a service is down', () => {
  it('Redis down is degraded, still 200 (the api writes without it); 503 only if RATE_LIMIT_FAIL=closed needs it', async () => {
    const { url: redisUrl, server: redis } = await startOwnRedis();
    const apis: TestApi[] = [];
    try {
      for (const mode of ['open', 'closed'])
        apis.push(await startApi({ env: { REDIS_URL: redisUrl, RATE_LIMIT_FAIL: mode } }));
      const [open, closed] = apis;
      const company = await createCompany(open, 'Degraded');
      for (const api of apis)
        await eventually(async () => (await http(api.url, 'GET', '/health')).status === 200);
      redis.kill('SIGKILL');
      const down = await eventually(async () => {
        const res = await http(open.url, 'GET', '/health');
        return res.body.checks.redis === 'down' ? res : undefined;
      });
      expect({ status: down.status, body: down.body }).toEqual({
        status: 200,
        body: { status: 'degraded', checks: { database: 'up', redis: 'down' } },
      });
      const write = await http(open.url, 'POST', '/inventory/int/v1/warehouses', {
        key: company.key,
        body: warehouse('Written while Redis is down'),
      });
      expect(write.status).toBe(201);
      const refused = await http(closed.url, 'GET', '/health');
      expect({ status: refused.status, body: refused.body }).toEqual({
        status: 503,
        body: { status: 'error', checks: { database: 'up', redis: 'down' } },
      });
      for (const api of apis) expect((await http(api.url, 'GET', '/health/live')).status).toBe(200);
    } finally {
      redis.kill('SIGKILL');
      // Its Redis is gone, so only the databases need dropping.
      for (const api of apis) {
        await api.close({ keepData: true });
        await dropDatabase(api.config.databaseUrl);
      }
    }
  });

  it('PostgreSQL down is 503 (the api cannot serve), live stays 200, and 200 again once it is back', async () => {
    const pg = await OwnPostgres.create();
    let api: TestApi | undefined;
    try {
      api = await startApi({ config: testConfig({ DATABASE_URL: pg.url('wharf_health') }) });
      const url = api.url;
      await pg.stop('fast');
      const down = await eventually(async () => {
        const res = await http(url, 'GET', '/health');
        return res.status === 503 ? res : undefined;
      });
      expect(down.body).toEqual({ status: 'error', checks: { database: 'down', redis: 'up' } });
      const live = await http(url, 'GET', '/health/live');
      expect({ status: live.status, body: live.body }).toEqual({ status: 200, body: { status: 'ok' } });
      await pg.start();
      const back = await eventually(async () => {
        const res = await http(url, 'GET', '/health');
        return res.status === 200 ? res : undefined;
      });
      expect(back.body).toEqual({ status: 'ok', checks: { database: 'up', redis: 'up' } });
    } finally {
      await api?.close({ keepData: true });
      if (api) await deleteQueueKeys(api.config);
      await pg.destroy();
    }
  });
});

describe('foundation: processes', () => {
  beforeAll(assertBuilt);

  it('`start` with Redis unreachable exits non-zero within 10 s with one line naming the URL', async () => {
    const config = testConfig();
    const run = runNode(CLI, ['start'], {
      DATABASE_URL: config.databaseUrl,
      REDIS_URL: 'redis://127.0.0.1:1',
      NODE_ENV: 'test',
    });
    const { code, ms } = await run.exited;
    expect(code).not.toBe(0);
    expect(ms).toBeLessThan(10_000);
    const lines = run.output().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /Cannot reach Redis at redis:\/\/127\.0\.0\.1:1.*docker compose up -d postgres redis/,
    );
  });

  it('`start` with PostgreSQL unreachable exits non-zero with one line naming the URL', async () => {
    const run = runNode(CLI, ['start'], {
      DATABASE_URL: 'postgres://postgres@127.0.0.1:1/wharf',
      REDIS_URL,
      NODE_ENV: 'test',
    });
    const { code } = await run.exited;
    expect(code).not.toBe(0);
    expect(run.output().trim().split('\n')).toEqual([
      expect.stringMatching(/Cannot reach PostgreSQL at postgres:\/\/postgres@127\.0\.0\.1:1\/wharf/),
    ]);
  });

  it('a bad variable is one line naming it', async () => {
    const run = runNode(CLI, ['start'], { PORT: 'eighty' });
    const { code } = await run.exited;
    expect(code).not.toBe(0);
    expect(run.output().trim()).toBe(
      'wharf: Invalid configuration: PORT must be a whole number from 0 to 65535, got "eighty"',
    );
  });

  it('a bad variable of the webhooks library is one line naming it, in the cli, the api and the worker', async () => {
    const line =
      'wharf: Invalid configuration: WEBHOOKS_CONCURRENCY must be a whole number from 1 to 1000, got "lots"';
    const main = (app: string) => join(ROOT, 'dist', 'apps', app, 'src', 'main.js');
    for (const [script, args] of [
      [CLI, ['start']],
      [main('api'), []],
      [main('worker'), []],
    ] as const) {
      const run = runNode(script, [...args], { WEBHOOKS_CONCURRENCY: 'lots' });
      const { code } = await run.exited;
      expect(code).not.toBe(0);
      expect(run.output().trim()).toBe(line);
    }
  });

  it('`start` creates and migrates the database, serves /health and runs the worker; SIGTERM stops both', async () => {
    const config = testConfig();
    const port = await freePort();
    const run = runNode(CLI, ['start'], {
      DATABASE_URL: config.databaseUrl,
      REDIS_URL,
      QUEUE_PREFIX: config.queuePrefix,
      PORT: String(port),
      NODE_ENV: 'development',
    });
    try {
      const health = await eventually(async () => {
        const res = await http(`http://127.0.0.1:${port}`, 'GET', '/health').catch(() => undefined);
        return res?.status === 200 ? res : undefined;
      }, 30_000);
      expect(health.body.checks).toEqual({ database: 'up', redis: 'up' });
      await eventually(async () => run.output().includes('Wharf worker ready'), 10_000);
      expect(run.output()).toContain('Created database');
      run.child.kill('SIGTERM');
      const { code } = await run.exited;
      expect(code).toBe(0);
    } finally {
      run.child.kill('SIGKILL');
      await dropDatabase(config.databaseUrl);
      // The worker it ran left its queue's keys (meta, stalled-check) under this prefix.
      await deleteQueueKeys(config);
    }
  }, 60_000);
});

describe('foundation: `npm start` under a process manager', () => {
  beforeAll(assertBuilt);

  /**
   * A process manager stops `npm start` by signalling npm. npm passes SIGTERM to the shell that runs the
   * script; a shell that is not exec-ed away dies without passing it on and leaves the api and the worker
   * running. `npm start` builds first (a minute, and it would rewrite the dist/ other suites run), so the
   * command it runs after the build is run through npm here, over this build.
   */
  it('SIGTERM to npm stops the api and the worker it started', async () => {
    const scripts = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts as Record<
      string,
      string
    >;
    const command = scripts.start.split('&&').pop()!.trim();
    const dir = mkdtempSync(join(tmpdir(), 'wharf-npm-start-'));
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({ name: 'npm-start', private: true, scripts: { start: command } }),
    );
    symlinkSync(join(ROOT, 'dist'), join(dir, 'dist'));
    const config = testConfig();
    const port = await freePort();
    const run = runCommand(
      'npm',
      ['start', '--silent'],
      {
        DATABASE_URL: config.databaseUrl,
        REDIS_URL,
        QUEUE_PREFIX: config.queuePrefix,
        PORT: String(port),
        NODE_ENV: 'development',
      },
      dir,
    );
    let started: number[] = [];
    try {
      await eventually(async () => {
        const res = await http(`http://127.0.0.1:${port}`, 'GET', '/health').catch(() => undefined);
        return res?.status === 200;
      }, 30_000);
      await eventually(async () => run.output().includes('Wharf worker ready'), 10_000);
      // The cli, and the api and worker it forked.
      started = descendants(run.child.pid!);
      expect(started.length).toBeGreaterThanOrEqual(3);
      run.child.kill('SIGTERM');
      // Not `exited` (stdout closed): a process left running would hold it open.
      await eventually(async () => [run.child.pid!, ...started].every((pid) => !running(pid)), 15_000);
    } finally {
      for (const pid of started.filter(running)) process.kill(pid, 'SIGKILL');
      run.child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
      await dropDatabase(config.databaseUrl);
      await deleteQueueKeys(config);
    }
  }, 60_000);
});

describe('test isolation', () => {
  it('uses a unique database and queue prefix per suite', () => {
    const a = testConfig();
    const b = testConfig();
    expect(a.databaseUrl).not.toBe(b.databaseUrl);
    expect(a.queuePrefix).not.toBe(b.queuePrefix);
    expect(new URL(a.databaseUrl).host).toBe(new URL(BASE_DATABASE_URL).host);
  });
});
