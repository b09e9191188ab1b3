import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { INestApplicationContext } from '@nestjs/common';
import type { Browser, Page } from 'playwright-core';
import { TestCompany, createCompany } from './support/accounts';
import { BROKERS, CONSUMERS, TestConsumer } from './support/brokers';
import { ARTIFACTS, CHROMIUM, chromiumSuite } from './support/chromium';
import { http } from './support/http';
import { TestApi, startApi } from './support/test-app';
import { FAST_WEBHOOKS, warehouse } from './support/webhooks';
import { startWorker } from './support/worker';

const suite = chromiumSuite('console destinations browser test');

suite('console: an endpoint that publishes to a broker', () => {
  let api: TestApi;
  let worker: INestApplicationContext;
  let acme: TestCompany;
  let browser: Browser;
  let page: Page;
  let stream: TestConsumer;

  beforeAll(async () => {
    const { chromium } = await import('playwright-core');
    api = await startApi({ env: FAST_WEBHOOKS });
    worker = await startWorker(api.config);
    acme = await createCompany(api, 'Broker Console Co');
    stream = await CONSUMERS.redis_stream();
    mkdirSync(ARTIFACTS, { recursive: true });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
    page.setDefaultTimeout(10_000);
  });

  afterAll(async () => {
    await browser?.close();
    await worker?.close();
    await stream?.close();
    await api?.close();
  });

  it('creates it from the type schema, shows its destination, and the target and answer of each attempt', async () => {
    const config = stream.config() as { url: string; stream: string };
    await page.goto(`${api.url}/console/`);
    await page.getByLabel('API key').fill(acme.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Webhooks' }).waitFor();

    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByLabel('Destination').selectOption('redis_stream');
    const fields = page.getByTestId('destination-fields');
    // The fields are the schema's: url, stream, maxlen, username and password (a password input).
    expect(
      await fields.locator('input').evaluateAll((inputs) => inputs.map((i) => i.getAttribute('name'))),
    ).toEqual(['url', 'stream', 'maxlen', 'username', 'password']);
    expect(await fields.locator('input[name=password]').getAttribute('type')).toBe('password');
    expect(await page.getByLabel('Endpoint URL').count()).toBe(0);
    await fields.locator('input[name=url]').fill(config.url);
    await fields.locator('input[name=stream]').fill(config.stream);
    await fields.locator('input[name=password]').fill('console-s3cret');
    await page.screenshot({ path: join(ARTIFACTS, 'console-destination-form.png'), fullPage: true });
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    expect(await page.getByTestId('new-secret').textContent()).toMatch(/^whsec_/);

    await page.getByRole('link', { name: 'Open the endpoint' }).click();
    await page.getByRole('heading', { name: BROKERS.redis_stream.url() }).waitFor();
    const destination = page.getByTestId('destination');
    expect(await destination.textContent()).toContain(config.stream);
    expect(await destination.textContent()).toContain('[redacted]');
    expect(await page.content()).not.toContain('console-s3cret');
    expect(await page.getByRole('button', { name: 'Verify ownership' }).count()).toBe(0);

    await page.getByRole('button', { name: 'Send test event' }).click();
    const result = page.getByTestId('test-result');
    await result.getByText(`stream "${config.stream}"`).waitFor();
    expect(await result.textContent()).toMatch(/\d+-\d+/);

    const created = await http(api.url, 'POST', '/inventory/int/v1/warehouses', {
      key: acme.key,
      body: warehouse('Published'),
    });
    expect(created.status).toBe(201);
    const row = page.locator('tr.row', { hasText: 'warehouse.created' });
    await row.waitFor({ timeout: 15_000 });
    expect(await row.textContent()).toContain(`stream "${config.stream}"`);
    expect(await row.locator('.badge').first().textContent()).toMatch(/^\d+-\d+$/);
    await row.getByRole('button').first().click();
    const detail = page.getByTestId('log-detail');
    await detail.waitFor();
    expect(await detail.getByTestId('log-target').textContent()).toContain(
      `${config.url} stream "${config.stream}"`,
    );
    expect(await detail.getByTestId('log-answer').textContent()).toMatch(/^Acknowledged: \d+-\d+/);
    expect(await detail.textContent()).toContain('webhook-signature: [redacted]');
    await page.screenshot({ path: join(ARTIFACTS, 'console-destination-log.png'), fullPage: true });
    expect(stream.received.map((m) => JSON.parse(m.body).event)).toEqual([
      'order.updated',
      'warehouse.created',
    ]);
  });
});
