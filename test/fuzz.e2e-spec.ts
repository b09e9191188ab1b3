import { Pool } from 'pg';
import { seedCompany } from '../fuzz/fuzz-seed';
import { FuzzTarget, fuzz } from '../fuzz/openapi-fuzzer';
import { createCompany } from './support/accounts';
import { TestApi, startApi } from './support/test-app';

/** The short, seeded run of `npm run fuzz` (the long run is ≥ 20,000 requests). */
const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
const REQUESTS = 300;

describe('fuzz: every operation of /docs-json with hostile input, both companies', () => {
  let api: TestApi;
  let pool: Pool;
  let target: FuzzTarget;

  beforeAll(async () => {
    // Production policy: every webhook target the fuzzer can name is refused before a connection is made.
    api = await startApi({
      env: {
        NODE_ENV: 'production',
        APP_KEY: Buffer.alloc(32, 15).toString('base64'),
        WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'false',
        RATE_LIMIT_PER_MINUTE: '100000000',
        LOG_LEVEL: 'error',
      },
    });
    pool = new Pool({ connectionString: api.config.databaseUrl, max: 2 });
    const [a, b] = [await createCompany(api, 'Fuzz A'), await createCompany(api, 'Fuzz B')];
    target = {
      baseUrl: api.url,
      companies: [a, b],
      query: async (sql, params = []) => (await pool.query(sql, params)).rows,
    };
    for (const company of target.companies) await seedCompany(target, company, api.config.appKey);
  });
  afterAll(async () => {
    await pool.end();
    await api.close();
  });

  it(`${REQUESTS} requests (seed ${SEED}): no 5xx, 4xx in the error format and writing nothing, no cross-company data`, async () => {
    const report = await fuzz(target, { seed: SEED, requests: REQUESTS, timeLimitMs: 45_000 });
    expect(report.failures).toEqual([]);
    expect(report.requests).toBeGreaterThan(100);
    // Both companies stayed authenticated (the key in use is never revoked by the run itself).
    expect(report.statuses['401'] ?? 0).toBeLessThan(report.requests / 10);
    // The run reached the api's refusals, not just its happy paths.
    expect(Object.keys(report.statuses)).toEqual(expect.arrayContaining(['400', '404', '422']));
  }, 90_000);
});
