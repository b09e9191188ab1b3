import { ConfigError, loadConfig, redactUrl } from './config';

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig({});
    expect(config.databaseUrl).toBe('postgres://postgres@127.0.0.1:5432/wharf');
    expect(config.redisUrl).toBe('redis://127.0.0.1:6379');
    expect(config.port).toBe(3000);
    expect(config.nodeEnv).toBe('development');
    expect(config.queuePrefix).toBe('wharf');
    expect(config.webhooks.retrySchedule).toEqual([
      5000, 300000, 1800000, 7200000, 18000000, 36000000, 36000000,
    ]);
    expect(config.webhooks.timeoutMs).toBe(15000);
    expect(config.webhooks.allowPrivateTargets).toBe(true);
    expect(config.appKeyGenerated).toBe(true);
    expect(config.extensions).toBeUndefined();
  });

  it('turns private targets off in production by default and requires APP_KEY there', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/APP_KEY/);
    const config = loadConfig({ NODE_ENV: 'production', APP_KEY: Buffer.alloc(32, 7).toString('base64') });
    expect(config.webhooks.allowPrivateTargets).toBe(false);
  });

  it.each([
    ['PORT', 'abc', /PORT must be a whole number/],
    ['PORT', '70000', /PORT must be a whole number/],
    ['DATABASE_URL', 'mysql://x', /DATABASE_URL must start with postgres/],
    ['REDIS_URL', 'not a url', /REDIS_URL is not a URL/],
    ['NODE_ENV', 'staging', /NODE_ENV must be/],
    ['WEBHOOKS_RETRY_SCHEDULE', '5s,soon', /WEBHOOKS_RETRY_SCHEDULE must be a comma list/],
    ['WEBHOOKS_ALLOW_PRIVATE_TARGETS', 'maybe', /WEBHOOKS_ALLOW_PRIVATE_TARGETS must be true or false/],
    ['QUEUE_PREFIX', 'has space', /QUEUE_PREFIX may hold only/],
    ['APP_KEY', 'c2hvcnQ=', /APP_KEY must be at least 32 bytes/],
    ['APP_KEY_PREVIOUS', 'c2hvcnQ=', /APP_KEY_PREVIOUS must be at least 32 bytes/],
  ])('rejects %s=%s with one line naming the variable', (name, value, message) => {
    let error: unknown;
    try {
      loadConfig({ [name]: value });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe(name);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain('\n');
  });

  it('parses fast test schedules and extension lists', () => {
    const config = loadConfig({
      WEBHOOKS_RETRY_SCHEDULE: '100ms,200ms',
      EXTENSIONS: 'inventory, @acme/yard',
    });
    expect(config.webhooks.retrySchedule).toEqual([100, 200]);
    expect(config.extensions).toEqual(['inventory', '@acme/yard']);
  });

  it('masks passwords when printing URLs', () => {
    expect(redactUrl('postgres://u:secret@db:5432/x')).toBe('postgres://u:***@db:5432/x');
  });
});
