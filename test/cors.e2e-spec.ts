import { createCompany, TestCompany } from './support/accounts';
import { http } from './support/http';
import { startApi, TestApi } from './support/test-app';

const PATH = '/inventory/int/v1/warehouses';
const APP_ORIGIN = 'https://app.example.com';
const APP_KEY = Buffer.alloc(32, 9).toString('base64');

function preflight(api: TestApi, origin: string, method = 'POST') {
  return http(api.url, 'OPTIONS', PATH, {
    headers: {
      origin,
      'access-control-request-method': method,
      'access-control-request-headers': 'authorization,content-type',
    },
  });
}

describe('CORS', () => {
  describe('with CORS_ORIGINS naming an origin (production)', () => {
    let api: TestApi;
    let acme: TestCompany;

    beforeAll(async () => {
      api = await startApi({
        env: {
          NODE_ENV: 'production',
          LOG_LEVEL: 'warn',
          APP_KEY,
          CORS_ORIGINS: `${APP_ORIGIN},http://localhost:4200`,
        },
      });
      acme = await createCompany(api, 'Acme');
    });
    afterAll(() => api.close());

    it('answers a preflight from an allowed origin with 204, methods, headers and max-age', async () => {
      const res = await preflight(api, APP_ORIGIN);
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
      expect(res.headers.get('access-control-allow-methods')).toBe('GET, HEAD, POST, PUT, PATCH, DELETE');
      const allowed = res.headers.get('access-control-allow-headers')!.toLowerCase().split(/,\s*/);
      expect(allowed).toEqual(expect.arrayContaining(['authorization', 'content-type', 'idempotency-key']));
      expect(res.headers.get('access-control-max-age')).toBe('7200');
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
      expect(res.headers.get('vary')).toMatch(/origin/i);
    });

    it('lets an allowed origin read a GET, with the request id and rate-limit headers exposed', async () => {
      const res = await http(api.url, 'GET', PATH, { key: acme.key, headers: { origin: APP_ORIGIN } });
      expect(res.status).toBe(200);
      expect(res.body.warehouses).toEqual([]);
      expect(res.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
      const exposed = res.headers.get('access-control-expose-headers')!.split(/,\s*/);
      expect(exposed).toEqual(
        expect.arrayContaining([
          'x-request-id',
          'x-ratelimit-limit',
          'x-ratelimit-remaining',
          'idempotent-replayed',
        ]),
      );
    });

    it('gives a disallowed origin no CORS headers, on the preflight and on the request', async () => {
      const blocked = await preflight(api, 'https://evil.example.org');
      expect(blocked.headers.get('access-control-allow-origin')).toBeNull();
      expect(blocked.headers.get('access-control-allow-methods')).toBeNull();
      const get = await http(api.url, 'GET', PATH, {
        key: acme.key,
        headers: { origin: 'https://evil.example.org' },
      });
      // The server still answers (CORS is enforced by the browser); what matters is no grant.
      expect(get.status).toBe(200);
      expect(get.headers.get('access-control-allow-origin')).toBeNull();
      expect(get.headers.get('access-control-expose-headers')).toBeNull();
    });
  });

  describe('in production without CORS_ORIGINS', () => {
    let api: TestApi;

    beforeAll(async () => {
      api = await startApi({ env: { NODE_ENV: 'production', LOG_LEVEL: 'warn', APP_KEY } });
    });
    afterAll(() => api.close());

    it('grants no origin', async () => {
      const res = await preflight(api, APP_ORIGIN);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      const health = await http(api.url, 'GET', '/health', { headers: { origin: APP_ORIGIN } });
      expect(health.status).toBe(200);
      expect(health.headers.get('access-control-allow-origin')).toBeNull();
    });
  });

  describe('by default (development and test)', () => {
    let api: TestApi;

    beforeAll(async () => {
      api = await startApi();
    });
    afterAll(() => api.close());

    it('allows any origin, without credentials', async () => {
      const res = await preflight(api, 'http://localhost:4200', 'DELETE');
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      const get = await http(api.url, 'GET', '/health', { headers: { origin: 'http://localhost:4200' } });
      expect(get.headers.get('access-control-allow-origin')).toBe('*');
    });
  });
});
