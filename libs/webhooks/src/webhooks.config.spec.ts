import { ConfigError, loadConfig } from '@wharf/core';
// Loading the library registers its section (as every process composing Wharf does).
import './webhooks.config';

describe('loadConfig: the webhooks section', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig({});
    expect(config.webhooks.retrySchedule).toEqual([
      5000, 300000, 1800000, 7200000, 18000000, 36000000, 36000000,
    ]);
    expect(config.webhooks.timeoutMs).toBe(15000);
    expect(config.webhooks.allowPrivateTargets).toBe(true);
    expect(config.webhooks.endpointConcurrency).toBe(10);
  });

  it('turns private targets off in production by default', () => {
    const config = loadConfig({ NODE_ENV: 'production', APP_KEY: Buffer.alloc(32, 7).toString('base64') });
    expect(config.webhooks.allowPrivateTargets).toBe(false);
  });

  it.each([
    ['WEBHOOKS_RETRY_SCHEDULE', '5s,soon', /WEBHOOKS_RETRY_SCHEDULE must be a comma list/],
    ['WEBHOOKS_ALLOW_PRIVATE_TARGETS', 'maybe', /WEBHOOKS_ALLOW_PRIVATE_TARGETS must be true or false/],
    [
      'WEBHOOKS_ENDPOINT_CONCURRENCY',
      '101',
      /WEBHOOKS_ENDPOINT_CONCURRENCY must be a whole number from 1 to 100/,
    ],
    [
      'WEBHOOKS_ENDPOINT_CONCURRENCY',
      '0',
      /WEBHOOKS_ENDPOINT_CONCURRENCY must be a whole number from 1 to 100/,
    ],
    ['WEBHOOKS_PARTITION_INTERVAL', '1500ms', /WEBHOOKS_PARTITION_INTERVAL must be whole seconds/],
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

  it('parses fast test schedules', () => {
    const config = loadConfig({ WEBHOOKS_RETRY_SCHEDULE: '100ms,200ms' });
    expect(config.webhooks.retrySchedule).toEqual([100, 200]);
  });
});
