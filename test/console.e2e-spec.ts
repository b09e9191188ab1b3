import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { INestApplicationContext } from '@nestjs/common';
import type { Browser, Page } from 'playwright-core';
import { DataSource } from 'typeorm';
import { TestCompany, createCompany } from './support/accounts';
import { ARTIFACTS, CHROMIUM, chromiumSuite } from './support/chromium';
import { eventually, http } from './support/http';
import { Receiver } from './support/receiver';
import { TestApi, startApi } from './support/test-app';
import { FAST_WEBHOOKS, warehouse } from './support/webhooks';
import { startWorker } from './support/worker';

const suite = chromiumSuite('console browser test');

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

    // Destructive: the first click only asks.
    await page.getByRole('button', { name: 'Disable endpoint' }).click();
    await page.getByRole('group', { name: 'Stop delivering to this endpoint?' }).waitFor();
    expect(
      (await http(api.url, 'GET', '/int/v1/webhook-endpoints', { key: acme.key })).body.webhook_endpoints[0]
        .status,
    ).toBe('enabled');
    await page.getByRole('button', { name: 'Yes, disable' }).click();
    await page.getByRole('button', { name: 'Enable endpoint' }).waitFor();
    const [endpoint] = (await http(api.url, 'GET', '/int/v1/webhook-endpoints', { key: acme.key })).body
      .webhook_endpoints;
    expect(endpoint.status).toBe('disabled');

    expect(external).toEqual([]);
  });

  it("shows an endpoint's in-flight and waiting deliveries, its throttled state, and edits its delivery settings", async () => {
    const company = await createCompany(api, 'Console Queue');
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    receiver.respond = (request) =>
      request.path === '/held' ? { status: 200, until: held } : { status: 200 };
    const created = await http(api.url, 'POST', '/int/v1/webhook-endpoints', {
      key: company.key,
      body: {
        webhook_endpoint: { url: `${receiver.url}/held`, events: ['warehouse.created'], max_in_flight: 2 },
      },
    });
    const uuid = created.body.webhook_endpoint.uuid;
    const tab = await browser.newPage({ viewport: { width: 1366, height: 900 } });
    tab.setDefaultTimeout(10_000);
    try {
      for (let i = 0; i < 5; i++) {
        await http(api.url, 'POST', '/inventory/int/v1/warehouses', {
          key: company.key,
          body: warehouse(`Q${i}`),
        });
      }
      // A tab of its own: the session (sessionStorage) of another company's key stays in the other tab.
      await tab.goto(`${api.url}/console/`);
      await tab.getByLabel('API key').fill(company.key);
      await tab.getByRole('button', { name: 'Sign in' }).click();
      await tab.getByRole('heading', { name: 'Webhooks' }).waitFor();
      await tab.goto(`${api.url}/console/#/webhooks/${uuid}`);
      const queue = tab.getByTestId('delivery-queue');
      await queue.getByText('2 in flight (of 2)').waitFor({ timeout: 15_000 });
      expect(await queue.textContent()).toContain('3 waiting');

      await api.app
        .get(DataSource)
        .query(
          `UPDATE webhook_endpoints SET throttled = true, throttled_reason = '3 attempts in a row timed out' WHERE uuid = $1`,
          [uuid],
        );
      await tab.reload();
      await tab
        .getByTestId('throttled')
        .getByText('3 attempts in a row timed out')
        .waitFor({ timeout: 20_000 });
      await tab.screenshot({ path: join(ARTIFACTS, 'console-endpoint-queue.png'), fullPage: true });

      await tab.getByLabel('Max in flight (1–100)').fill('0');
      await tab.getByRole('button', { name: 'Save delivery settings' }).click();
      await tab.getByRole('alert').filter({ hasText: 'max_in_flight' }).waitFor();
      await tab.getByLabel('Max in flight (1–100)').fill('5');
      await tab.getByLabel('Rate limit per second (empty = unlimited)').fill('20');
      await tab.getByLabel('Ordering').selectOption('entity');
      await tab.getByLabel('Payload form').selectOption('thin');
      await tab.getByRole('button', { name: 'Save delivery settings' }).click();
      await tab.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
      const after = await http(api.url, 'GET', `/int/v1/webhook-endpoints/${uuid}`, { key: company.key });
      expect(after.body.webhook_endpoint).toMatchObject({
        max_in_flight: 5,
        rate_limit_per_second: 20,
        ordering: 'entity',
        payload: 'thin',
      });
    } finally {
      release();
      await tab.close();
    }
  });

  it('labels a manually disabled endpoint "disabled" and only a worker-disabled one "auto-disabled"', async () => {
    const company = await createCompany(api, 'Console Labels');
    const create = async (path: string) =>
      (
        await http(api.url, 'POST', '/int/v1/webhook-endpoints', {
          key: company.key,
          body: { webhook_endpoint: { url: `${receiver.url}${path}`, events: ['*'] } },
        })
      ).body.webhook_endpoint.uuid as string;
    const manual = await create('/manual');
    const gone = await create('/gone');
    await create('/running');
    expect(
      (await http(api.url, 'POST', `/int/v1/webhook-endpoints/${manual}/disable`, { key: company.key }))
        .status,
    ).toBe(200);
    // What the worker writes when an endpoint answers 410 Gone.
    await api.app
      .get(DataSource)
      .query(
        `UPDATE webhook_endpoints SET status = 'disabled', disabled_at = now(), disabled_reason = 'The endpoint answered 410 Gone.' WHERE uuid = $1`,
        [gone],
      );
    const tab = await browser.newPage({ viewport: { width: 1366, height: 900 } });
    tab.setDefaultTimeout(10_000);
    try {
      await tab.goto(`${api.url}/console/`);
      await tab.getByLabel('API key').fill(company.key);
      await tab.getByRole('button', { name: 'Sign in' }).click();
      const badge = (path: string) =>
        tab
          .locator('tr', { hasText: `${receiver.url}${path}` })
          .locator('.badge')
          .first();
      await badge('/gone').waitFor();
      expect(await badge('/manual').textContent()).toBe('disabled');
      expect(await badge('/gone').textContent()).toBe('auto-disabled');
      expect(await badge('/running').textContent()).toBe('enabled');
      await tab.goto(`${api.url}/console/#/webhooks/${manual}`);
      await tab.getByRole('button', { name: 'Enable endpoint' }).waitFor();
      expect(await tab.locator('.heading .badge').first().textContent()).toBe('disabled');
    } finally {
      await tab.close();
    }
  });

  it('fits a 360 px wide screen: no horizontal scrolling on the list and the endpoint page', async () => {
    const company = await createCompany(api, 'Console Narrow');
    const url = `${receiver.url}/a-rather-long-path/that-would-widen/a-table-cell/${'x'.repeat(40)}`;
    const created = await http(api.url, 'POST', '/int/v1/webhook-endpoints', {
      key: company.key,
      body: { webhook_endpoint: { url, events: ['*'], description: 'narrow screen' } },
    });
    const uuid = created.body.webhook_endpoint.uuid;
    await http(api.url, 'POST', `/int/v1/webhook-endpoints/${uuid}/test`, { key: company.key, body: {} });
    const tab = await browser.newPage({ viewport: { width: 360, height: 780 } });
    tab.setDefaultTimeout(10_000);
    const failed: string[] = [];
    tab.on('response', (response) => {
      if (response.status() >= 400) failed.push(`${response.status()} ${response.url()}`);
    });
    const pageWidth = () => tab.evaluate<number>('document.documentElement.scrollWidth');
    try {
      await tab.goto(`${api.url}/console/`);
      await tab.getByLabel('API key').fill(company.key);
      await tab.getByRole('button', { name: 'Sign in' }).click();
      await tab.getByRole('link', { name: url }).waitFor();
      expect(await pageWidth()).toBeLessThanOrEqual(360);
      await tab.getByRole('button', { name: 'Add endpoint' }).click();
      await tab.getByRole('group', { name: 'Events' }).waitFor();
      expect(await pageWidth()).toBeLessThanOrEqual(360);
      await tab.screenshot({ path: join(ARTIFACTS, 'console-360-list.png'), fullPage: true });

      await tab.goto(`${api.url}/console/#/webhooks/${uuid}`);
      await tab.locator('tr.row').first().waitFor({ timeout: 15_000 });
      await tab.getByRole('button', { name: 'Reveal' }).click();
      const secret = tab.getByTestId('secret');
      await secret.waitFor();
      // The secret is one line: not broken mid-string.
      const box = await secret.boundingBox();
      const fontSize = await secret.evaluate(
        (el) => (globalThis as any).getComputedStyle(el).fontSize as string,
      );
      expect(box!.height).toBeLessThan(2 * parseFloat(fontSize) + 8);
      expect(await pageWidth()).toBeLessThanOrEqual(360);
      await tab.screenshot({ path: join(ARTIFACTS, 'console-360-endpoint.png'), fullPage: true });
      // The favicon is served (no 404 on any load).
      const icon = await tab.locator('link[rel="icon"]').getAttribute('href');
      expect(icon).toBe('/console/favicon.svg');
      expect((await fetch(`${api.url}${icon}`)).status).toBe(200);
      expect(failed).toEqual([]);
    } finally {
      await tab.close();
    }
  });

  it('edits the payload filter (422s at their place), tests it against a recent event, and keeps headers & auth redacted until revealed', async () => {
    const company = await createCompany(api, 'Console Routing');
    receiver.respond = () => ({ status: 200, body: 'ok' });
    const created = await http(api.url, 'POST', '/int/v1/webhook-endpoints', {
      key: company.key,
      body: {
        webhook_endpoint: {
          url: `${receiver.url}/routed`,
          events: ['warehouse.created'],
          headers: { 'X-Api-Key': 'k-console-1' },
          auth: { type: 'bearer', token: 'tok-console-secret' },
        },
      },
    });
    const uuid = created.body.webhook_endpoint.uuid as string;
    await http(api.url, 'POST', '/inventory/int/v1/warehouses', {
      key: company.key,
      body: warehouse('Console North'),
    });
    // A recent event in the log for the filter test to pick.
    await eventually(async () => receiver.requests.some((r) => r.path === '/routed'), 15_000);
    await eventually(
      async () =>
        (await http(api.url, 'GET', '/int/v1/webhook-request-logs?test=false', { key: company.key })).body
          .webhook_request_logs.length > 0,
    );
    const tab = await browser.newPage({ viewport: { width: 1366, height: 900 } });
    tab.setDefaultTimeout(10_000);
    try {
      await tab.goto(`${api.url}/console/`);
      await tab.getByLabel('API key').fill(company.key);
      await tab.getByRole('button', { name: 'Sign in' }).click();
      await tab.getByRole('heading', { name: 'Webhooks' }).waitFor();
      await tab.goto(`${api.url}/console/#/webhooks/${uuid}`);

      // The filter: a 422 shown at its place in the filter, then a non-match and a match on the recent event.
      const filter = tab.getByLabel('Filter (JSON)');
      await filter.fill('{"data.name": {"$inn": ["x"]}}');
      await tab.getByRole('button', { name: 'Save filter' }).click();
      const errors = tab.getByTestId('filter-errors');
      await errors.waitFor();
      expect(await errors.textContent()).toContain('data.name › $inn');
      expect(
        (await http(api.url, 'GET', `/int/v1/webhook-endpoints/${uuid}`, { key: company.key })).body
          .webhook_endpoint.filter,
      ).toBeNull();
      await tab
        .getByLabel('Test against a recent event')
        .locator('option', { hasText: 'warehouse.created' })
        .waitFor({ state: 'attached' });
      await filter.fill('{"data.name": {"$in": ["Console South"]}}');
      await tab.getByRole('button', { name: 'Test filter' }).click();
      const verdict = tab.getByTestId('filter-verdict');
      await verdict.getByText('Does not match').waitFor();
      expect(await verdict.textContent()).toContain('data.name › $in');
      await filter.fill('{"data.name": {"$prefix": "Console"}}');
      await tab.getByRole('button', { name: 'Test filter' }).click();
      await verdict.getByText('Matches').waitFor();
      await tab.getByRole('button', { name: 'Save filter' }).click();
      await tab.getByRole('status').filter({ hasText: 'Filter saved.' }).waitFor();
      expect(
        (await http(api.url, 'GET', `/int/v1/webhook-endpoints/${uuid}`, { key: company.key })).body
          .webhook_endpoint.filter,
      ).toEqual({ 'data.name': { $prefix: 'Console' } });

      // Headers & auth: names shown, values hidden until revealed.
      const card = tab.getByRole('region', { name: 'Headers & auth' });
      await card.getByTestId('headers').getByText('X-Api-Key').waitFor();
      expect(await card.getByTestId('auth').textContent()).toContain('Bearer token');
      expect(await tab.content()).not.toMatch(/k-console-1|tok-console-secret/);
      await card.getByRole('button', { name: 'Reveal values' }).click();
      await card.getByText('k-console-1').waitFor();
      await tab.screenshot({ path: join(ARTIFACTS, 'console-routing.png'), fullPage: true });

      // Edited without revealing: the redacted value and the unchanged secret stay as stored.
      await tab.reload();
      await card.getByRole('button', { name: 'Edit headers & auth' }).click();
      expect(await card.getByLabel('Header 1 value').inputValue()).toBe('[redacted]');
      await card.getByRole('button', { name: 'Add header' }).click();
      await card.getByLabel('Header 2 name').fill('X-Tenant');
      await card.getByLabel('Header 2 value').fill('acme');
      await card.getByRole('button', { name: 'Save headers & auth' }).click();
      await card.getByRole('status').filter({ hasText: 'Headers and auth saved.' }).waitFor();
      const revealed = await http(api.url, 'GET', `/int/v1/webhook-endpoints/${uuid}/headers`, {
        key: company.key,
      });
      expect(revealed.body.headers).toEqual({ 'X-Api-Key': 'k-console-1', 'X-Tenant': 'acme' });
      await card.getByRole('button', { name: 'Edit headers & auth' }).click();
      await card.getByLabel('Auth').selectOption('basic');
      await card.getByLabel('Username').fill('console');
      await card.getByLabel('Password').fill('pw-console');
      await card.getByRole('button', { name: 'Save headers & auth' }).click();
      await card.getByRole('status').filter({ hasText: 'Headers and auth saved.' }).waitFor();
      await tab.getByRole('button', { name: 'Send test event' }).click();
      await tab.getByTestId('test-result').getByText('200').waitFor();
      const sent = receiver.requests.filter((r) => r.path === '/routed').at(-1)!;
      expect(sent.headers['x-api-key']).toBe('k-console-1');
      expect(sent.headers['x-tenant']).toBe('acme');
      expect(sent.headers.authorization).toBe(
        `Basic ${Buffer.from('console:pw-console').toString('base64')}`,
      );
    } finally {
      await tab.close();
    }
  });

  it('tells when an endpoint is disabled or throttled: a banner with the reason on its page, a notice in the list, at 360 px too', async () => {
    const company = await createCompany(api, 'Console Banner');
    const create = async (path: string) =>
      (
        await http(api.url, 'POST', '/int/v1/webhook-endpoints', {
          key: company.key,
          body: { webhook_endpoint: { url: `${receiver.url}${path}`, events: ['*'] } },
        })
      ).body.webhook_endpoint.uuid as string;
    const gone = await create('/gone-banner');
    const slow = await create('/slow-banner');
    await create('/fine-banner');
    const db = api.app.get(DataSource);
    await db.query(
      `UPDATE webhook_endpoints SET status = 'disabled', disabled_at = now(), disabled_reason = 'The endpoint answered 410 Gone.' WHERE uuid = $1`,
      [gone],
    );
    await db.query(
      `UPDATE webhook_endpoints SET throttled = true, throttled_reason = '3 attempts in a row timed out: sending one at a time until one succeeds.' WHERE uuid = $1`,
      [slow],
    );
    const tab = await browser.newPage({ viewport: { width: 360, height: 780 } });
    tab.setDefaultTimeout(10_000);
    const pageWidth = () => tab.evaluate<number>('document.documentElement.scrollWidth');
    try {
      await tab.goto(`${api.url}/console/`);
      await tab.getByLabel('API key').fill(company.key);
      await tab.getByRole('button', { name: 'Sign in' }).click();
      const notice = tab.getByTestId('endpoints-notice');
      await notice.waitFor();
      const text = await notice.textContent();
      expect(text).toContain('1 endpoint disabled, 1 endpoint throttled');
      expect(text).toContain('The endpoint answered 410 Gone.');
      expect(text).toContain('3 attempts in a row timed out');
      expect(await pageWidth()).toBeLessThanOrEqual(360);
      await tab.screenshot({ path: join(ARTIFACTS, 'console-360-notice.png'), fullPage: true });

      await notice.getByRole('link', { name: `${receiver.url}/gone-banner` }).click();
      const banner = tab.getByTestId('endpoint-banner');
      await banner.getByText('Disabled automatically').waitFor();
      expect(await banner.textContent()).toContain('The endpoint answered 410 Gone.');
      expect(await pageWidth()).toBeLessThanOrEqual(360);
      await tab.screenshot({ path: join(ARTIFACTS, 'console-360-banner.png'), fullPage: true });

      await tab.goto(`${api.url}/console/#/webhooks/${slow}`);
      await tab.getByTestId('endpoint-banner').getByText('Throttled').waitFor();
      expect(await tab.getByTestId('endpoint-banner').textContent()).toContain(
        '3 attempts in a row timed out',
      );
    } finally {
      await tab.close();
    }
  });

  it('groups events under their real name prefix (warehouse_dock, not warehouse-dock)', async () => {
    await page.goto(`${api.url}/console/#/webhooks`);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const events = page.getByRole('group', { name: 'Events' });
    await events.waitFor();
    await events.getByLabel('All events').uncheck();
    const legends = await events.locator('fieldset.group legend').allTextContents();
    expect(legends).toContain('warehouse_dock');
    expect(legends).not.toContain('warehouse-dock');
    for (const name of await events
      .locator('input[name="event"]')
      .evaluateAll((inputs) => inputs.map((input) => (input as unknown as { value: string }).value))) {
      expect(legends).toContain(name.split('.')[0]);
    }
  });

  it('shows API errors as the API detail, never a blank page', async () => {
    await page.goto(`${api.url}/console/#/webhooks/00000000-0000-4000-8000-000000000000`);
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).toMatch(/\S/);
  });
});
