import { join } from 'node:path';
import {
  AppConfig,
  BaseResource,
  Extension,
  PinoNestLogger,
  Resource,
  ResourceHooks,
  ResourceModel,
  WriteTransaction,
  createResourceTable,
  deleteKeysWithPrefix,
  dropDatabase,
  loadConfig,
} from '@wharf/core';
import { IsString } from 'class-validator';
import { Column, Entity, MigrationInterface, QueryRunner } from 'typeorm';
import { startOwnRedis } from './support/redis';
import { createCompany } from './support/accounts';
import { Client } from 'pg';
import { eventually, http } from './support/http';
import { OwnPostgres } from './support/own-postgres';
import { freePort } from './support/ports';
import { CLI, Spawned, assertBuilt, runNode } from './support/processes';
import { Receiver } from './support/receiver';
import { REDIS_URL, TestApi, prepareDatabase, startApi, testConfig } from './support/test-app';
import { FAST_WEBHOOKS, warehouse } from './support/webhooks';

const API = join(CLI, '..', '..', '..', 'api', 'src', 'main.js');
const WORKER = join(CLI, '..', '..', '..', 'worker', 'src', 'main.js');
const W = '/inventory/int/v1/warehouses';

function lines(output: string, pattern: RegExp): string[] {
  return output.split('\n').filter((line) => pattern.test(line));
}

describe('outages: PostgreSQL stopped under load', () => {
  let pg: OwnPostgres;
  let config: AppConfig;
  let receiver: Receiver;
  let api: Spawned;
  let worker: Spawned;
  let url: string;
  let key: string;

  beforeAll(async () => {
    assertBuilt();
    pg = await OwnPostgres.create();
    const prefix = testConfig().queuePrefix;
    const port = await freePort();
    const env = {
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      DATABASE_URL: pg.url('wharf_outage'),
      REDIS_URL,
      QUEUE_PREFIX: prefix,
      HOST: '127.0.0.1',
      PORT: String(port),
      RATE_LIMIT_PER_MINUTE: '1000000',
      ...FAST_WEBHOOKS,
      WEBHOOKS_RETRY_SCHEDULE: '1s,1s,1s,1s,1s',
      WEBHOOKS_SWEEP_GRACE: '5s',
    };
    config = loadConfig(env);
    await prepareDatabase(config);
    receiver = await new Receiver().start();
    // Slow answers keep deliveries in flight when the database goes away.
    receiver.respond = () => ({ status: 200, delayMs: 200 });
    api = runNode(API, [], env);
    worker = runNode(WORKER, [], env);
    url = `http://127.0.0.1:${port}`;
    await eventually(async () => (await http(url, 'GET', '/health')).status === 200, 60_000);
    const created = runNode(CLI, ['companies:create', '--name', 'Outage', '--json'], env);
    expect((await created.exited).code).toBe(0);
    key = JSON.parse(created.output().trim().split('\n').pop()!).api_key;
    const endpoint = await http(url, 'POST', '/int/v1/webhook-endpoints', {
      key,
      body: { webhook_endpoint: { url: `${receiver.url}/hook`, events: ['warehouse.created'] } },
    });
    expect(endpoint.status).toBe(201);
  }, 120_000);

  afterAll(async () => {
    for (const child of [api, worker]) child?.child.kill('SIGTERM');
    await Promise.all([api?.exited, worker?.exited]);
    await receiver?.stop();
    await pg?.destroy();
    if (config) await deleteKeysWithPrefix(config, config.queuePrefix);
  });

  it('answers 503 with Retry-After, logs the outage once, and delivers every committed event after the restart', async () => {
    const statuses = new Map<number, number>();
    const unavailable: { retryAfter: string | null; body: any }[] = [];
    let stopped = false;
    let written = 0;
    let afterRestart = 0;
    let restarted = false;
    const load = Array.from({ length: 8 }, async (_, lane) => {
      for (let i = 0; !stopped; i++) {
        const res = await http(url, 'POST', W, { key, body: warehouse(`w-${lane}-${i}`) }).catch(
          () => undefined,
        );
        if (!res) continue;
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status === 201) {
          written++;
          if (restarted) afterRestart++;
        }
        if (res.status === 503) {
          unavailable.push({ retryAfter: res.headers.get('retry-after'), body: res.body });
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
    });
    try {
      await eventually(async () => written >= 50, 30_000);
      await pg.stop('fast');
      // Down long enough for the worker to notice too (its relay polls, its attempts wait to be recorded).
      await eventually(
        async () => unavailable.length >= 200 && lines(worker.output(), /database unavailable/).length > 0,
        30_000,
      );
      await pg.start();
      restarted = true;
      await eventually(async () => afterRestart >= 50, 60_000);
    } finally {
      stopped = true;
      await Promise.all(load);
    }

    expect([...statuses.keys()].sort()).toEqual([201, 503]);
    for (const answer of unavailable) {
      expect(answer.retryAfter).toBe('5');
      expect(answer.body).toEqual({
        errors: [expect.objectContaining({ status: '503', code: 'unavailable', detail: expect.any(String) })],
      });
    }

    // Every committed write (a 503 may still have committed, if only the answer was lost) is delivered.
    const db = new Client({ connectionString: pg.url('wharf_outage') });
    await db.connect();
    try {
      const { rows } = await db.query<{ uuid: string }>('SELECT uuid FROM warehouses');
      const committed = rows.map((row) => row.uuid).sort();
      expect(committed.length).toBeGreaterThanOrEqual(written);
      const delivered = () => new Set(receiver.events().map((event) => (event.data as { id: string }).id));
      await eventually(async () => committed.every((uuid) => delivered().has(uuid)), 90_000, 500);
      expect([...delivered()].sort()).toEqual(committed);
      // Every request the receiver got is in the request log, including those sent while the database was down.
      await eventually(async () => {
        const [{ n }] = (await db.query('SELECT count(*)::int AS n FROM webhook_request_logs')).rows;
        return n === receiver.requests.length;
      }, 30_000);
    } finally {
      await db.end();
    }

    await eventually(async () => lines(api.output(), /database available again/).length === 1, 15_000);
    await eventually(async () => lines(worker.output(), /database available again/).length === 1, 15_000);
    for (const child of [api, worker]) {
      expect(lines(child.output(), /database unavailable/)).toHaveLength(1);
      expect(lines(child.output(), /unhandled error|QueryRunnerAlreadyReleased|relay failed/)).toEqual([]);
    }
    // The relay is woken only after a write that committed: a failed one does not try, and a signal that
    // PostgreSQL went away under is part of the outage logged once.
    expect(lines(api.output(), /could not wake the relay/)).toEqual([]);
  }, 240_000);
});

// ---- a resource whose hook kills its own connection and then fails -------------------------------------

class FuseDto {
  @IsString() name: string;
}

class FuseHooks implements ResourceHooks {
  async beforeCreate(tx: WriteTransaction): Promise<void> {
    await tx.queryRunner.query('SELECT pg_terminate_backend(pg_backend_pid())').catch(() => undefined);
    await eventually(async () => tx.queryRunner.isReleased, 5000, 20).catch(() => undefined);
    throw new Error('fuse-sentinel: the original cause');
  }
}

@Entity('fuses')
@ResourceModel('fuse', { dto: FuseDto, hooks: FuseHooks })
class Fuse extends BaseResource {
  @Column('varchar') name: string;
}

@Resource(Fuse)
class FuseController {}

class CreateFuses1800000000100 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await createResourceTable(queryRunner, 'fuses', `"name" varchar(255) NOT NULL`);
  }
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE "fuses"');
  }
}

@Extension({
  name: 'fuse',
  entities: [Fuse],
  migrations: [CreateFuses1800000000100],
  controllers: [FuseController],
})
class FuseExtension {}

describe('outages: a failed rollback never hides the error', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startApi({ extensions: [FuseExtension] });
  });
  afterAll(() => api.close());

  it('logs the error that failed the transaction, not the rollback that could not run on the dead connection', async () => {
    const company = await createCompany(api, 'Fuse');
    const logged = jest.spyOn(PinoNestLogger.prototype, 'error');
    try {
      const res = await http(api.url, 'POST', '/fuse/int/v1/fuses', {
        key: company.key,
        body: { fuse: { name: 'x' } },
      });
      expect(res.status).toBe(500);
      const messages = logged.mock.calls.map(([entry]) => JSON.stringify(entry));
      expect(messages.some((m) => m.includes('fuse-sentinel: the original cause'))).toBe(true);
      expect(messages.filter((m) => /already released/i.test(m))).toEqual([]);
    } finally {
      logged.mockRestore();
    }
  });
});

describe('outages: rate limiting while Redis is down', () => {
  it('RATE_LIMIT_FAIL=open serves unmetered, closed answers 503; each api logs the outage once', async () => {
    const { url: redisUrl, server: redis } = await startOwnRedis();
    const apis: TestApi[] = [];
    const warned = jest.spyOn(PinoNestLogger.prototype, 'warn');
    try {
      for (const mode of ['open', 'closed'])
        apis.push(await startApi({ env: { REDIS_URL: redisUrl, RATE_LIMIT_FAIL: mode } }));
      const [open, closed] = apis;
      const keys = [await createCompany(open, 'Open'), await createCompany(closed, 'Closed')].map(
        (c) => c.key,
      );
      for (const [i, api] of apis.entries())
        expect((await http(api.url, 'GET', '/int/v1/locations', { key: keys[i] })).status).toBe(200);
      redis.kill('SIGKILL');
      // Far from the limit requests are counted in memory; the next sync with Redis notices the outage.
      await eventually(
        async () => (await http(closed.url, 'GET', '/int/v1/locations', { key: keys[1] })).status === 503,
      );
      for (let i = 0; i < 20; i++) {
        expect((await http(open.url, 'GET', '/int/v1/locations', { key: keys[0] })).status).toBe(200);
        const refused = await http(closed.url, 'GET', '/int/v1/locations', { key: keys[1] });
        expect(refused.status).toBe(503);
        expect(refused.headers.get('retry-after')).toBe('5');
        expect(refused.body.errors[0].code).toBe('unavailable');
      }
      const outageLines = () =>
        warned.mock.calls.filter(([entry]) => JSON.stringify(entry).includes('redis unavailable'));
      // The open api notices at its next background sync with Redis; then each api has said it once,
      // and more requests during the same outage add no line.
      await eventually(async () => outageLines().length >= 2, 10_000);
      for (const [i, api] of apis.entries())
        await http(api.url, 'GET', '/int/v1/locations', { key: keys[i] });
      expect(outageLines()).toHaveLength(2);
    } finally {
      warned.mockRestore();
      redis.kill('SIGKILL');
      for (const api of apis) {
        await api.close({ keepData: true });
        await dropDatabase(api.config.databaseUrl);
      }
    }
  });
});
