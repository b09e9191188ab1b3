import { join } from 'node:path';
import { deleteKeysWithPrefix, dropDatabase, loadConfig } from '@wharf/core';
import { eventually, http } from './support/http';
import { freePort } from './support/ports';
import { CLI, Spawned, assertBuilt, runNode } from './support/processes';
import { Receiver } from './support/receiver';
import { RedisCluster, redisClusterBinaries } from './support/redis-cluster';
import { prepareDatabase, testConfig } from './support/test-app';
import { FAST_WEBHOOKS, warehouse } from './support/webhooks';

const API = join(CLI, '..', '..', '..', 'api', 'src', 'main.js');
const WORKER = join(CLI, '..', '..', '..', 'worker', 'src', 'main.js');
const available = redisClusterBinaries();
if (!available) {
  // Skipped only where Debian's redis-server/redis-cli are missing; everywhere else this test must run.
  process.stderr.write('redis-cluster.e2e-spec: SKIPPED: redis-server or redis-cli is not installed\n');
}

(available ? describe : describe.skip)('Redis Cluster: api and worker on a 3-master cluster', () => {
  let cluster: RedisCluster;
  let receiver: Receiver;
  const children: Spawned[] = [];
  let env: Record<string, string>;

  beforeAll(async () => {
    assertBuilt();
    cluster = await RedisCluster.start(3);
    receiver = await new Receiver().start();
    const base = testConfig();
    env = {
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      DATABASE_URL: base.databaseUrl,
      REDIS_URL: 'redis://127.0.0.1:6379',
      REDIS_CLUSTER_NODES: cluster.nodes,
      QUEUE_PREFIX: `{${base.queuePrefix}}`,
      HOST: '127.0.0.1',
      PORT: String(await freePort()),
      ...FAST_WEBHOOKS,
    };
    await prepareDatabase(loadConfig(env));
  }, 60_000);

  afterAll(async () => {
    for (const { child } of children) child.kill('SIGTERM');
    await Promise.all(children.map((c) => c.exited));
    await receiver?.stop();
    if (env) {
      await deleteKeysWithPrefix(loadConfig(env), env.QUEUE_PREFIX).catch(() => undefined);
      await dropDatabase(env.DATABASE_URL);
    }
    cluster?.stop();
  });

  it('delivers events, with every key of the queue in one hash slot', async () => {
    const api = runNode(API, [], env);
    const worker = runNode(WORKER, [], env);
    children.push(api, worker);
    const url = `http://127.0.0.1:${env.PORT}`;
    await eventually(async () => (await http(url, 'GET', '/health')).status === 200, 60_000);
    await eventually(async () => worker.output().includes('Wharf worker ready'), 60_000);
    const created = runNode(CLI, ['companies:create', '--name', 'Cluster', '--json'], env);
    expect((await created.exited).code).toBe(0);
    const key: string = JSON.parse(created.output().trim().split('\n').pop()!).api_key;
    const endpoint = await http(url, 'POST', '/int/v1/webhook-endpoints', {
      key,
      body: { webhook_endpoint: { url: `${receiver.url}/hook`, events: ['warehouse.created'] } },
    });
    expect(endpoint.status).toBe(201);
    const uuids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await http(url, 'POST', '/inventory/int/v1/warehouses', { key, body: warehouse(`c-${i}`) });
      expect(res.status).toBe(201);
      uuids.push(res.body.warehouse.uuid);
    }
    const delivered = () => new Set(receiver.events().map((e) => e.data.id as string));
    await eventually(async () => delivered().size === 20, 60_000);
    expect([...delivered()].sort()).toEqual(uuids.sort());

    // All of the prefix's keys live on one master, in one slot.
    const keysPerNode = await Promise.all(
      cluster.ports.map(async (port) =>
        (await cluster.cli(port, '--scan', '--pattern', `${env.QUEUE_PREFIX}:*`)).split('\n').filter(Boolean),
      ),
    );
    const holding = keysPerNode.filter((keys) => keys.length > 0);
    expect(holding).toHaveLength(1);
    const port = cluster.ports[keysPerNode.findIndex((keys) => keys.length > 0)];
    const slots = new Set(
      await Promise.all(holding[0].slice(0, 20).map((k) => cluster.cli(port, 'cluster', 'keyslot', k))),
    );
    expect(slots.size).toBe(1);
    expect(api.output()).not.toMatch(/unhandled error/);
  }, 180_000);
});
