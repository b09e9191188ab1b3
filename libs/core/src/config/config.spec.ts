import { ConfigError, loadConfig, redactUrl } from './config';

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig({});
    expect(config.databaseUrl).toBe('postgres://postgres@127.0.0.1:5432/wharf');
    expect(config.redisUrl).toBe('redis://127.0.0.1:6379');
    expect(config.port).toBe(3000);
    expect(config.nodeEnv).toBe('development');
    expect(config.queuePrefix).toBe('wharf');
    expect(config.appKeyGenerated).toBe(true);
    expect(config.extensions).toBeUndefined();
    expect(config.host).toBe('0.0.0.0');
    expect(config.rateLimitFail).toBe('open');
    expect(config.shutdownTimeoutMs).toBe(30000);
    expect(config.metricsPort).toBe(0);
    expect(config.metricsToken).toBeUndefined();
    expect(config.adminToken).toBeUndefined();
    expect(config.redisClusterNodes).toBeUndefined();
    expect(config.portalFrameAncestors).toEqual(["'self'"]);
    expect(config.databaseReplicaUrls).toEqual([]);
    expect(config.databaseReplicaMaxLagMs).toBe(5000);
  });

  it('reads the replicas to read from and how far behind one may be', () => {
    const config = loadConfig({
      DATABASE_REPLICA_URLS: 'postgres://r1:5432/wharf, postgresql://u:p@r2/wharf',
      DATABASE_REPLICA_MAX_LAG: '500ms',
    });
    expect(config.databaseReplicaUrls).toEqual(['postgres://r1:5432/wharf', 'postgresql://u:p@r2/wharf']);
    expect(config.databaseReplicaMaxLagMs).toBe(500);
    expect(() => loadConfig({ DATABASE_REPLICA_URLS: 'mysql://u:hunter2@r/x' })).toThrow(
      /got "mysql:\/\/u:\*\*\*@r\/x"/,
    );
  });

  it('reads the origins that may frame the console', () => {
    expect(
      loadConfig({ PORTAL_FRAME_ANCESTORS: "'self', https://app.example.com https://*.example.org:8443" })
        .portalFrameAncestors,
    ).toEqual(["'self'", 'https://app.example.com', 'https://*.example.org:8443']);
  });

  it('reads Redis Cluster seed nodes, IPv6 in brackets included, and wants a {hash-tag} prefix there', () => {
    expect(() => loadConfig({ REDIS_CLUSTER_NODES: '10.0.0.1:7000' })).toThrow(
      /QUEUE_PREFIX must contain a \{hash-tag\}/,
    );
    expect(
      loadConfig({ REDIS_CLUSTER_NODES: '10.0.0.1:7000, [::1]:7001', QUEUE_PREFIX: '{wharf}' })
        .redisClusterNodes,
    ).toEqual([
      { host: '10.0.0.1', port: 7000 },
      { host: '::1', port: 7001 },
    ]);
  });

  it('requires APP_KEY in production', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/APP_KEY/);
  });

  it('has no section of a library that was not loaded (the webhooks library declares its own)', () => {
    expect(loadConfig({})).not.toHaveProperty('webhooks');
  });

  it.each([
    ['PORT', 'abc', /PORT must be a whole number/],
    ['PORT', '70000', /PORT must be a whole number/],
    ['DATABASE_URL', 'mysql://x', /DATABASE_URL must start with postgres/],
    ['REDIS_URL', 'not a url', /REDIS_URL is not a URL/],
    ['NODE_ENV', 'staging', /NODE_ENV must be/],
    ['QUEUE_PREFIX', 'has space', /QUEUE_PREFIX may hold only/],
    ['APP_KEY', 'c2hvcnQ=', /APP_KEY must be at least 32 bytes/],
    ['APP_KEY_PREVIOUS', 'c2hvcnQ=', /APP_KEY_PREVIOUS must be at least 32 bytes/],
    ['CORS_ORIGINS', 'https://app.example.com/', /CORS_ORIGINS must be \* or a comma list of origins/],
    ['CORS_ORIGINS', 'app.example.com', /CORS_ORIGINS must be \* or a comma list of origins/],
    ['CORS_ORIGINS', 'ftp://app.example.com', /CORS_ORIGINS must be \* or a comma list of origins/],
    ['RATE_LIMIT_FAIL', 'sometimes', /RATE_LIMIT_FAIL must be open or closed/],
    ['SHUTDOWN_TIMEOUT_MS', '-1', /SHUTDOWN_TIMEOUT_MS must be a whole number/],
    ['METRICS_PORT', '99999', /METRICS_PORT must be a whole number/],
    ['METRICS_TOKEN', 'short', /METRICS_TOKEN must be at least 16 characters/],
    ['ADMIN_TOKEN', 'short', /ADMIN_TOKEN must be at least 16 characters/],
    ['PORTAL_FRAME_ANCESTORS', 'https://app.example.com/path', /PORTAL_FRAME_ANCESTORS must be 'self'/],
    ['PORTAL_FRAME_ANCESTORS', 'https://a.example.com; script-src *', /PORTAL_FRAME_ANCESTORS must be/],
    ['PORTAL_FRAME_ANCESTORS', "'none' https://a.example.com", /cannot be combined/],
    [
      'DATABASE_REPLICA_URLS',
      'postgres://r1/wharf,mysql://r2/x',
      /DATABASE_REPLICA_URLS must be a comma list of postgres:\/\/ URLs/,
    ],
    ['DATABASE_REPLICA_MAX_LAG', '0s', /DATABASE_REPLICA_MAX_LAG must be a positive duration/],
    ['REDIS_CLUSTER_NODES', '127.0.0.1:7000,nohost', /REDIS_CLUSTER_NODES must be a comma list of host:port/],
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

  it('parses extension lists', () => {
    const config = loadConfig({
      EXTENSIONS: 'inventory, @acme/yard',
    });
    expect(config.extensions).toEqual(['inventory', '@acme/yard']);
  });

  it('allows any browser origin in development and none in production unless CORS_ORIGINS says so', () => {
    const production = { NODE_ENV: 'production', APP_KEY: Buffer.alloc(32, 7).toString('base64') };
    expect(loadConfig({}).corsOrigins).toBe('*');
    expect(loadConfig(production).corsOrigins).toEqual([]);
    expect(
      loadConfig({ ...production, CORS_ORIGINS: 'https://app.example.com, http://localhost:4200' })
        .corsOrigins,
    ).toEqual(['https://app.example.com', 'http://localhost:4200']);
    expect(loadConfig({ ...production, CORS_ORIGINS: '*' }).corsOrigins).toBe('*');
  });

  it('masks passwords when printing URLs', () => {
    expect(redactUrl('postgres://u:secret@db:5432/x')).toBe('postgres://u:***@db:5432/x');
  });
});
