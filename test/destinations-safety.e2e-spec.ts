import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { decryptSecret, encryptSecret } from '@wharf/webhooks';
import { TestCompany, createCompany } from './support/accounts';
import { BROKERS, CONSUMERS, TestConsumer } from './support/brokers';
import { eventually, http } from './support/http';
import { CLI, Spawned, assertBuilt, runNode } from './support/processes';
import { TestApi, startApi } from './support/test-app';
import { sql, warehouse, workerEnv } from './support/webhooks';

const W = '/inventory/int/v1/warehouses';
const E = '/int/v1/webhook-endpoints';
const L = '/int/v1/webhook-request-logs';
const WORKER = join(CLI, '..', '..', '..', 'worker', 'src', 'main.js');
/** Credentials that must never be read back: the shared MQTT broker and NATS server take any. */
const MQTT_PASSWORD = 'Mq77-s3cret-pw';
const NATS_TOKEN = 'N4ts-t0ken-s3cret';
/** RabbitMQ refuses it: its failed attempts are logged, without it. */
const RABBIT_PASSWORD = 'Wr0ng-Rabb1t-pw';
const SECRETS = new RegExp([MQTT_PASSWORD, NATS_TOKEN, RABBIT_PASSWORD].join('|'));

async function create(api: TestApi, company: TestCompany, fields: Record<string, unknown>) {
  return http(api.url, 'POST', E, { key: company.key, body: { webhook_endpoint: fields } });
}

describe('destinations: types, validation and credentials', () => {
  let api: TestApi;
  let worker: Spawned;
  let company: TestCompany;
  let mqtt: TestConsumer;
  let nats: TestConsumer;

  beforeAll(async () => {
    assertBuilt();
    api = await startApi({ env: { RATE_LIMIT_PER_MINUTE: '100000' } });
    worker = runNode(WORKER, [], workerEnv(api, { LOG_LEVEL: 'debug' }));
    company = await createCompany(api, 'Destinations');
    mqtt = await CONSUMERS.mqtt();
    nats = await CONSUMERS.nats();
  });
  afterAll(async () => {
    worker?.child.kill('SIGTERM');
    await worker?.exited;
    await mqtt?.close();
    await nats?.close();
    await api?.close();
  });

  it('GET /int/v1/destination-types: every type with its config schema, secret fields writeOnly', async () => {
    const res = await http(api.url, 'GET', '/int/v1/destination-types', { key: company.key });
    expect(res.status).toBe(200);
    const types = res.body.destination_types as { name: string; config_schema: any; description: string }[];
    expect(types.map((t) => t.name)).toEqual(['http', 'rabbitmq', 'nats', 'mqtt', 'redis_stream']);
    const schema = (name: string) => types.find((t) => t.name === name)!.config_schema;
    expect(schema('rabbitmq').required).toEqual(['url', 'exchange']);
    const secret = (name: string) =>
      Object.entries(schema(name).properties as Record<string, { writeOnly?: boolean }>)
        .filter(([, field]) => field.writeOnly)
        .map(([field]) => field);
    expect(secret('rabbitmq')).toEqual(['password']);
    expect(secret('nats')).toEqual(['password', 'token']);
    expect(secret('mqtt')).toEqual(['password']);
    expect(secret('redis_stream')).toEqual(['password']);
    expect(types.every((t) => t.description.length > 20)).toBe(true);
  });

  it.each([
    [
      { type: 'rabbitmq', config: { url: 'amqp://127.0.0.1' } },
      '/config/exchange',
      'config.exchange is required.',
    ],
    [
      { type: 'rabbitmq', config: { url: 'amqp://127.0.0.1', exchange: 'x', queue: 'q' } },
      '/config/queue',
      'no field "queue"',
    ],
    [{ type: 'nats', config: { url: 'http://127.0.0.1:4222' } }, '/config/url', 'must match pattern'],
    [
      { type: 'nats', config: { url: 'nats://me:pw@127.0.0.1:4222' } },
      '/config/url',
      'may not carry credentials',
    ],
    [
      { type: 'redis_stream', config: { url: 'redis://127.0.0.1', stream: 's', maxlen: 0 } },
      '/config/maxlen',
      '>= 1',
    ],
    [{ type: 'mqtt' }, '/config', 'config is required for a mqtt endpoint'],
    [
      { type: 'mqtt', config: { url: 'mqtt://127.0.0.1' }, auth: { type: 'bearer', token: 't' } },
      '/auth',
      'for http endpoints',
    ],
    [
      { type: 'mqtt', config: { url: 'mqtt://127.0.0.1' }, url: 'https://example.com' },
      '/url',
      'is config.url',
    ],
    [{ type: 'kafka', config: {} }, '/type', ''],
    [
      { type: 'http', config: { url: 'https://example.com' }, url: 'https://example.com' },
      '/config',
      'no config',
    ],
  ])('%j is a 422 pointing at %s, and creates nothing', async (fields, pointer, detail) => {
    const res = await create(api, company, fields);
    expect(res.status).toBe(422);
    const problem = (res.body.errors as { source: { pointer: string }; detail: string }[]).find(
      (error) => error.source.pointer === `/data/attributes${pointer}`,
    );
    expect(problem?.detail).toContain(detail);
    const list = await http(api.url, 'GET', `${E}?type=${String(fields.type)}`, { key: company.key });
    expect(list.body.meta.total).toBe(0);
  });

  it('credentials are sealed, read back as "[redacted]" everywhere, kept when sent back so, and in no log line', async () => {
    const mqttEndpoint = await create(api, company, {
      type: 'mqtt',
      config: { ...mqtt.config(), username: 'wharf', password: MQTT_PASSWORD },
      events: ['warehouse.created'],
    });
    const natsEndpoint = await create(api, company, {
      type: 'nats',
      config: { ...nats.config(), token: NATS_TOKEN },
      events: ['warehouse.created'],
    });
    const rabbitEndpoint = await create(api, company, {
      type: 'rabbitmq',
      config: {
        url: BROKERS.rabbitmq.url(),
        exchange: 'amq.topic',
        username: 'guest',
        password: RABBIT_PASSWORD,
      },
      events: ['warehouse.created'],
    });
    for (const created of [mqttEndpoint, natsEndpoint, rabbitEndpoint]) {
      expect(created.status).toBe(201);
      expect(created.text).not.toMatch(SECRETS);
    }
    expect(mqttEndpoint.body.webhook_endpoint).toMatchObject({
      type: 'mqtt',
      url: BROKERS.mqtt.url(),
      config: { url: BROKERS.mqtt.url(), username: 'wharf', password: '[redacted]' },
    });
    expect(natsEndpoint.body.webhook_endpoint.config.token).toBe('[redacted]');
    const mqttUuid = mqttEndpoint.body.webhook_endpoint.uuid as string;
    const rabbitUuid = rabbitEndpoint.body.webhook_endpoint.uuid as string;

    // Sealed with APP_KEY: the whole config, and nothing readable in the row.
    const [row] = await sql(api, 'SELECT config, config_sealed FROM webhook_endpoints WHERE uuid = $1', [
      mqttUuid,
    ]);
    expect(JSON.stringify(row)).not.toMatch(SECRETS);
    expect(JSON.parse(decryptSecret(row.config_sealed, api.config.appKey)).password).toBe(MQTT_PASSWORD);

    await http(api.url, 'POST', W, { key: company.key, body: warehouse('Sealed') });
    await eventually(async () => mqtt.received.length === 1 && nats.received.length === 1, 30_000);
    await eventually(
      async () =>
        (
          await sql(
            api,
            `SELECT 1 FROM webhook_request_logs WHERE webhook_endpoint_uuid = $1 AND attempt = 2`,
            [rabbitUuid],
          )
        ).length > 0,
      30_000,
    );
    const [refused] = await sql(
      api,
      'SELECT error FROM webhook_request_logs WHERE webhook_endpoint_uuid = $1',
      [rabbitUuid],
    );
    expect(refused.error).toMatch(/ACCESS_REFUSED|403/);

    // "[redacted]" sent back keeps the stored password: the next event still reaches the broker.
    const kept = await http(api.url, 'PUT', `${E}/${mqttUuid}`, {
      key: company.key,
      body: { webhook_endpoint: { config: mqttEndpoint.body.webhook_endpoint.config } },
    });
    expect(kept.status).toBe(200);
    const [after] = await sql(api, 'SELECT config_sealed FROM webhook_endpoints WHERE uuid = $1', [mqttUuid]);
    expect(JSON.parse(decryptSecret(after.config_sealed, api.config.appKey)).password).toBe(MQTT_PASSWORD);

    const sent = await http(api.url, 'POST', `${E}/${mqttUuid}/test`, { key: company.key, body: {} });
    expect(sent.status).toBe(200);
    expect(sent.body.webhook_request_log).toMatchObject({
      status: 'successful',
      url: `${BROKERS.mqtt.url()} topic "${String(mqtt.config().topic)}"`,
      response_status: null,
    });
    expect(sent.body.webhook_request_log.response_body).toMatch(/^PUBACK/);
    await eventually(async () => mqtt.received.length === 2, 30_000);

    const reads = [
      `${E}`,
      `${E}/${mqttUuid}`,
      `${E}/${rabbitUuid}`,
      `${E}/${natsEndpoint.body.webhook_endpoint.uuid}`,
      `${L}?limit=100`,
    ];
    for (const path of reads) {
      const read = await http(api.url, 'GET', path, { key: company.key });
      expect(read.status).toBe(200);
      expect(read.text).not.toMatch(SECRETS);
    }
    expect(kept.text).not.toMatch(SECRETS);
    expect(sent.text).not.toMatch(SECRETS);

    // The worker logged the refused attempts (a positive sign it logs them), never a credential.
    await eventually(async () => /delivery attempt failed[^\n]*ACCESS_REFUSED/.test(worker.output()), 30_000);
    expect(worker.output()).not.toMatch(SECRETS);
  });

  it('secrets:reencrypt rewrites a sealed config under the new APP_KEY with the secrets', async () => {
    const created = await create(api, company, {
      type: 'nats',
      config: { ...nats.config(), token: NATS_TOKEN },
      status: 'disabled',
    });
    const uuid = created.body.webhook_endpoint.uuid as string;
    const newKey = randomBytes(32);
    const run = runNode(CLI, ['secrets:reencrypt', '--json'], {
      DATABASE_URL: api.config.databaseUrl,
      REDIS_URL: api.config.redisUrl,
      QUEUE_PREFIX: api.config.queuePrefix,
      NODE_ENV: 'test',
      APP_KEY: newKey.toString('base64'),
      APP_KEY_PREVIOUS: api.config.appKey.toString('base64'),
    });
    expect((await run.exited).code).toBe(0);
    const [row] = await sql(api, 'SELECT config_sealed FROM webhook_endpoints WHERE uuid = $1', [uuid]);
    expect(JSON.parse(decryptSecret(row.config_sealed, newKey)).token).toBe(NATS_TOKEN);
    expect(run.output()).not.toMatch(SECRETS);
  });

  it('a broker endpoint has no ownership challenge (422)', async () => {
    const created = await create(api, company, { type: 'mqtt', config: mqtt.config(), status: 'disabled' });
    const res = await http(api.url, 'POST', `${E}/${created.body.webhook_endpoint.uuid}/verify`, {
      key: company.key,
    });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].detail).toContain('no ownership challenge');
  });
});

describe('destinations: the target policy refuses private broker hosts', () => {
  let api: TestApi;
  let worker: Spawned;
  let company: TestCompany;

  beforeAll(async () => {
    assertBuilt();
    api = await startApi({ env: { WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'false' } });
    worker = runNode(WORKER, [], workerEnv(api, { WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'false' }));
    company = await createCompany(api, 'Private');
  });
  afterAll(async () => {
    worker?.child.kill('SIGTERM');
    await worker?.exited;
    await api?.close();
  });

  it.each([
    ['rabbitmq', { url: 'amqp://127.0.0.1:5672', exchange: 'x' }, 'loopback address 127.0.0.1'],
    ['nats', { url: 'nats://localhost:4222' }, 'loopback host name "localhost"'],
    ['mqtt', { url: 'mqtt://10.0.0.8' }, 'private address 10.0.0.8'],
    ['redis_stream', { url: 'redis://[::1]:6379', stream: 's' }, 'loopback address ::1'],
  ])(
    'a %s host on a private address is refused when saved (422 at config/url)',
    async (type, config, why) => {
      const res = await create(api, company, { type, config });
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual([
        expect.objectContaining({
          detail: `The URL is not allowed: ${why}.`,
          source: { pointer: '/data/attributes/config/url' },
        }),
      ]);
    },
  );

  it('and when dialled: a row saved before the policy applied fails for good, the broker never reached', async () => {
    const created = await create(api, company, {
      type: 'rabbitmq',
      config: { url: 'amqp://rabbit.example.com', exchange: 'amq.topic' },
      events: ['warehouse.created'],
    });
    expect(created.status).toBe(201);
    const uuid = created.body.webhook_endpoint.uuid as string;
    // The shared broker is really there: only the policy stands between the delivery and it.
    const sealed = encryptSecret(
      JSON.stringify({ url: BROKERS.rabbitmq.url(), exchange: 'amq.topic' }),
      api.config.appKey,
    );
    await sql(api, 'UPDATE webhook_endpoints SET config_sealed = $2, updated_at = now() WHERE uuid = $1', [
      uuid,
      sealed,
    ]);
    await http(api.url, 'POST', W, { key: company.key, body: warehouse('Blocked') });
    const [delivery] = await eventually(async () => {
      const rows = await sql(
        api,
        `SELECT status FROM webhook_deliveries WHERE webhook_endpoint_uuid = $1 AND status = 'failed'`,
        [uuid],
      );
      return rows.length ? rows : undefined;
    }, 30_000);
    expect(delivery.status).toBe('failed');
    const attempts = await sql(
      api,
      'SELECT error FROM webhook_request_logs WHERE webhook_endpoint_uuid = $1',
      [uuid],
    );
    expect(attempts).toEqual([{ error: 'blocked: loopback address 127.0.0.1' }]);
  });
});
