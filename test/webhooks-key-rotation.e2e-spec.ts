import { INestApplicationContext, Logger } from '@nestjs/common';
import { AppConfig } from '@wharf/core';
import { decryptSecret, encryptSecret } from '@wharf/webhooks';
import { TestCompany, createCompany } from './support/accounts';
import { eventually, http } from './support/http';
import { CLI, assertBuilt, runNode } from './support/processes';
import { TestApi, startApi, testConfig } from './support/test-app';
import { FAST_WEBHOOKS, sql, warehouse } from './support/webhooks';
import { startWorker } from './support/worker';

const OLD_KEY = Buffer.alloc(32, 1);
const NEW_KEY = Buffer.alloc(32, 2);
const E = '/int/v1/webhook-endpoints';

describe('webhooks: APP_KEY rotation', () => {
  let config: AppConfig;
  let api: TestApi;
  let acme: TestCompany;

  /** An endpoint whose secret was saved under OLD_KEY, as before an APP_KEY change. */
  async function endpointUnderOldKey(secret: string): Promise<string> {
    const created = await http(api.url, 'POST', E, {
      key: acme.key,
      body: { webhook_endpoint: { url: 'http://127.0.0.1:9/hook', events: ['warehouse.created'] } },
    });
    const uuid = created.body.webhook_endpoint.uuid as string;
    await sql(api, 'UPDATE webhook_endpoints SET secret = $2 WHERE uuid = $1', [
      uuid,
      encryptSecret(secret, OLD_KEY),
    ]);
    return uuid;
  }

  beforeAll(async () => {
    config = { ...testConfig(FAST_WEBHOOKS), appKey: NEW_KEY, appKeyPrevious: undefined };
    api = await startApi({ config });
    acme = await createCompany(api, 'Rotation');
  });
  afterAll(async () => {
    await api.close();
  });

  it('a secret no key opens: reveal, test and verify answer 409 naming the endpoint, never 500', async () => {
    const uuid = await endpointUnderOldKey('whsec_' + Buffer.alloc(32, 5).toString('base64'));
    for (const [method, path] of [
      ['GET', `${E}/${uuid}/secret`],
      ['POST', `${E}/${uuid}/test`],
      ['POST', `${E}/${uuid}/verify`],
    ]) {
      const response = await http(api.url, method, path, { key: acme.key });
      expect({ path, status: response.status }).toEqual({ path, status: 409 });
      expect(response.body.errors[0].detail).toContain(uuid);
      expect(response.body.errors[0].detail).toMatch(/APP_KEY_PREVIOUS/);
    }
  });

  it('rotating recovers an endpoint whose secret no key opens (the unreadable old secret is dropped)', async () => {
    const uuid = await endpointUnderOldKey('whsec_' + Buffer.alloc(32, 6).toString('base64'));
    const rotated = await http(api.url, 'POST', `${E}/${uuid}/rotate-secret`, { key: acme.key });
    expect(rotated.status).toBe(200);
    const revealed = await http(api.url, 'GET', `${E}/${uuid}/secret`, { key: acme.key });
    expect(revealed.body.secret).toBe(rotated.body.webhook_endpoint.secret);
    const [row] = await sql(api, 'SELECT previous_secret FROM webhook_endpoints WHERE uuid = $1', [uuid]);
    expect(row.previous_secret).toBeNull();
  });

  it('the worker logs an error line and an attempt naming the endpoint instead of failing obscurely', async () => {
    const uuid = await endpointUnderOldKey('whsec_' + Buffer.alloc(32, 7).toString('base64'));
    const logged = jest.spyOn(Logger.prototype, 'error');
    const worker: INestApplicationContext = await startWorker(config);
    try {
      await http(api.url, 'POST', '/inventory/int/v1/warehouses', {
        key: acme.key,
        body: warehouse('Locked'),
      });
      const log = await eventually(async () => {
        const [row] = await sql(
          api,
          'SELECT error, response_status FROM webhook_request_logs WHERE webhook_endpoint_uuid = $1',
          [uuid],
        );
        return row;
      }, 30_000);
      expect(log.response_status).toBeNull();
      expect(log.error).toMatch(new RegExp(`^secret: .*${uuid}.*APP_KEY_PREVIOUS`));
      expect(logged).toHaveBeenCalledWith(
        expect.objectContaining({ msg: expect.stringMatching(/cannot be decrypted/), endpoint: uuid }),
      );
    } finally {
      logged.mockRestore();
      await worker.close();
    }
  });

  describe('with APP_KEY_PREVIOUS set to the old key', () => {
    let rotatedApi: TestApi;
    beforeAll(async () => {
      await sql(api, 'DELETE FROM webhook_endpoints');
      rotatedApi = await startApi({ config: { ...config, appKeyPrevious: OLD_KEY } });
    });
    afterAll(async () => {
      await rotatedApi.close({ keepData: true });
    });

    it('opens the old secret and re-encrypts it under APP_KEY on use', async () => {
      const secret = 'whsec_' + Buffer.alloc(32, 8).toString('base64');
      const uuid = await endpointUnderOldKey(secret);
      const revealed = await http(rotatedApi.url, 'GET', `${E}/${uuid}/secret`, { key: acme.key });
      expect(revealed.body).toEqual({ secret });
      const [row] = await sql(api, 'SELECT secret FROM webhook_endpoints WHERE uuid = $1', [uuid]);
      expect(decryptSecret(row.secret, NEW_KEY)).toBe(secret);
    });

    it('`secrets:reencrypt` rewrites every secret still under the old key and names those no key opens', async () => {
      assertBuilt();
      const secret = 'whsec_' + Buffer.alloc(32, 9).toString('base64');
      const old = await endpointUnderOldKey(secret);
      const lost = await endpointUnderOldKey('whsec_' + Buffer.alloc(32, 10).toString('base64'));
      await sql(api, 'UPDATE webhook_endpoints SET secret = $2 WHERE uuid = $1', [
        lost,
        encryptSecret('whsec_x', Buffer.alloc(32, 11)),
      ]);
      const run = runNode(CLI, ['secrets:reencrypt', '--json'], {
        DATABASE_URL: config.databaseUrl,
        REDIS_URL: config.redisUrl,
        QUEUE_PREFIX: config.queuePrefix,
        NODE_ENV: 'test',
        APP_KEY: NEW_KEY.toString('base64'),
        APP_KEY_PREVIOUS: OLD_KEY.toString('base64'),
      });
      const { code } = await run.exited;
      const lines = run.output().trim().split('\n');
      expect(JSON.parse(lines[lines.length - 1])).toEqual({
        endpoints: 3,
        reencrypted: 1,
        unreadable: [lost],
      });
      expect(code).toBe(1);
      const [row] = await sql(api, 'SELECT secret FROM webhook_endpoints WHERE uuid = $1', [old]);
      expect(decryptSecret(row.secret, NEW_KEY)).toBe(secret);
    });

    it('rewrites sealed headers and auth under APP_KEY with the secrets, so APP_KEY_PREVIOUS can go', async () => {
      assertBuilt();
      const uuid = await endpointUnderOldKey('whsec_' + Buffer.alloc(32, 12).toString('base64'));
      const headers = JSON.stringify({ 'X-Api-Key': 'k-123' });
      const auth = JSON.stringify({ type: 'bearer', token: 't-456' });
      await sql(api, 'UPDATE webhook_endpoints SET headers_sealed = $2, auth_sealed = $3 WHERE uuid = $1', [
        uuid,
        encryptSecret(headers, OLD_KEY),
        encryptSecret(auth, OLD_KEY),
      ]);
      const run = runNode(CLI, ['secrets:reencrypt', '--json'], {
        DATABASE_URL: config.databaseUrl,
        REDIS_URL: config.redisUrl,
        QUEUE_PREFIX: config.queuePrefix,
        NODE_ENV: 'test',
        APP_KEY: NEW_KEY.toString('base64'),
        APP_KEY_PREVIOUS: OLD_KEY.toString('base64'),
      });
      await run.exited;
      const [row] = await sql(
        api,
        'SELECT headers_sealed, auth_sealed FROM webhook_endpoints WHERE uuid = $1',
        [uuid],
      );
      expect(decryptSecret(row.headers_sealed, NEW_KEY)).toBe(headers);
      expect(decryptSecret(row.auth_sealed, NEW_KEY)).toBe(auth);
    });
  });
});
