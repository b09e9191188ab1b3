import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { INestApplicationContext } from '@nestjs/common';
import type { Browser, Page } from 'playwright-core';
import { TestCompany, createCompany } from './support/accounts';
import { http } from './support/http';
import { Receiver } from './support/receiver';
import { TestApi, startApi } from './support/test-app';
import { FAST_WEBHOOKS, warehouse } from './support/webhooks';
import { startWorker } from './support/worker';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = join(__dirname, 'artifacts');
const available = existsSync(CHROMIUM);
if (!available && !process.env.CI) {
  // Developer machines without Chromium skip with one line; CI installs it (.ci/run) and never skips.
  process.stdout.write(
    `console browser test skipped: no Chromium at ${CHROMIUM} (apt-get install chromium)\n`,
  );
}
const suite = available || process.env.CI ? describe : describe.skip;

suite('console: Developers > Webhooks in a real browser', () => {
  let api: TestApi;
  let worker: INestApplicationContext;
  let receiver: Receiver;
  let acme: TestCompany;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    const { chromium } = await import('playwright-core');
    api = await startApi({ env: FAST_WEBHOOKS });
    worker = await startWorker(api.config);
    receiver = await new Receiver().start();
    receiver.respond = () => ({
      status: 200,
      headers: { 'content-type': 'text/plain' },
      body: 'received by the test receiver',
    });
    acme = await createCompany(api, 'Console Co');
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
    await receiver?.stop();
    await api?.close();
  });

  it('runs the whole flow: sign in, create, test, live delivery log, disable', async () => {
    const external: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(api.url)) external.push(request.url());
    });

    await page.goto(`${api.url}/console/`);
    await page.getByLabel('API key').fill('wharf_live_not_a_real_key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'not accepted' }).waitFor();

    await page.getByLabel('API key').fill(acme.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Webhooks' }).waitFor();

    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByLabel('Endpoint URL').fill(`${receiver.url}/console-hook`);
    await page.getByLabel('Description').fill('Console test endpoint');
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    const secret = await page.getByTestId('new-secret').textContent();
    expect(secret).toMatch(/^whsec_/);
    await page.getByRole('link', { name: `${receiver.url}/console-hook` }).waitFor();
    await page.screenshot({ path: join(ARTIFACTS, 'console-endpoints.png'), fullPage: true });

    await page.getByRole('link', { name: 'Open the endpoint' }).click();
    await page.getByRole('heading', { name: `${receiver.url}/console-hook` }).waitFor();
    await page.getByRole('button', { name: 'Send test event' }).click();
    const result = page.getByTestId('test-result');
    await result.getByText('200').waitFor();
    expect(await result.textContent()).toContain('received by the test receiver');
    expect(receiver.events('/console-hook').map((e) => e.event)).toEqual(['order.updated']);

    const created = await http(api.url, 'POST', '/inventory/int/v1/warehouses', {
      key: acme.key,
      body: warehouse('From the API'),
    });
    expect(created.status).toBe(201);
    const row = page.locator('tr.row', { hasText: 'warehouse.created' });
    await row.waitFor({ timeout: 15_000 });
    await page.screenshot({ path: join(ARTIFACTS, 'console-endpoint.png'), fullPage: true });

    await row.getByRole('button').first().click();
    const detail = page.getByTestId('log-detail');
    await detail.waitFor();
    expect(await detail.getByTestId('request-body').textContent()).toContain(created.body.warehouse.uuid);
    expect(await detail.textContent()).toContain('Status 200');
    await page.screenshot({ path: join(ARTIFACTS, 'console-log-row.png'), fullPage: true });

    await page.getByRole('button', { name: 'Disable endpoint' }).click();
    await page.getByRole('button', { name: 'Enable endpoint' }).waitFor();
    const [endpoint] = (await http(api.url, 'GET', '/int/v1/webhook-endpoints', { key: acme.key })).body
      .webhook_endpoints;
    expect(endpoint.status).toBe('disabled');

    expect(external).toEqual([]);
  });

  it('shows API errors as the API detail, never a blank page', async () => {
    await page.goto(`${api.url}/console/#/webhooks/00000000-0000-4000-8000-000000000000`);
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).toMatch(/\S/);
  });
});
