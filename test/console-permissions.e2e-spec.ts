import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { TestCompany, createCompany } from './support/accounts';
import { ARTIFACTS, CHROMIUM, chromiumSuite } from './support/chromium';
import { http } from './support/http';
import { TestApi, startApi } from './support/test-app';
import { warehouse } from './support/webhooks';

const suite = chromiumSuite('console permissions browser test');
const W = '/inventory/int/v1/warehouses';

suite('console: restricted keys and read permissions, in Chromium', () => {
  let api: TestApi;
  let acme: TestCompany;
  let browser: Browser;

  beforeAll(async () => {
    const { chromium } = await import('playwright-core');
    api = await startApi();
    acme = await createCompany(api, 'Permissions Console Co');
    mkdirSync(ARTIFACTS, { recursive: true });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await api?.close();
  });

  async function newPage(): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ viewport: { width: 1366, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    return { context, page };
  }

  it('creates on the API keys page a key with only inventory.warehouses:read: 200 on GET warehouses, 403 on POST', async () => {
    const { context, page } = await newPage();
    try {
      await page.goto(`${api.url}/console/`);
      await page.getByLabel('API key').fill(acme.key);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('link', { name: 'API keys' }).click();
      await page.getByRole('heading', { name: 'API keys' }).waitFor();

      // Restricted: reading by default, grouped by extension, each resource None / Read / Write.
      await page.getByLabel('Restricted: the permissions chosen below').check();
      const warehouses = page.getByRole('radiogroup', { name: 'inventory.warehouses' });
      expect(await warehouses.getByLabel('Read').isChecked()).toBe(true);
      expect(
        await page.getByRole('group', { name: 'fleet' }).getByLabel('fleet.orders:dispatch').isChecked(),
      ).toBe(false);
      await page.getByRole('button', { name: 'None to all' }).click();
      expect(await warehouses.getByLabel('None').isChecked()).toBe(true);
      await warehouses.getByLabel('Read').check();
      await page.getByLabel('Name').fill('warehouse reader');
      await page.getByRole('button', { name: 'Create key' }).click();
      const key = (await page.getByTestId('new-api-key').textContent())!.trim();
      expect(key).toMatch(/^wharf_rk_[0-9A-Za-z]{36}$/);
      const row = page.locator('tr', { hasText: 'warehouse reader' });
      await row.waitFor();
      expect(await row.locator('td.permissions').textContent()).toBe('inventory.warehouses:read');
      expect(await page.locator('tr', { hasText: 'default' }).locator('td.permissions').textContent()).toBe(
        'all',
      );
      await page.screenshot({ path: join(ARTIFACTS, 'console-api-keys-permissions.png'), fullPage: true });

      expect((await http(api.url, 'GET', W, { key })).status).toBe(200);
      const refused = await http(api.url, 'POST', W, { key, body: warehouse('Refused') });
      expect({ status: refused.status, error: refused.body.errors[0] }).toEqual({
        status: 403,
        error: expect.objectContaining({
          code: 'insufficient_permission',
          meta: { permission: 'inventory.warehouses:write' },
        }),
      });
    } finally {
      await context.close();
    }
  });

  /** The endpoint page's buttons that write (or reveal), which a session that may not do so must not see. */
  const WRITE_BUTTONS = [
    'Reveal',
    'Rotate',
    'Disable endpoint',
    'Verify ownership',
    'Delete endpoint',
    'Send test event',
    'Save filter',
    'Save delivery settings',
    'Recover',
  ];

  it('a portal session that may write sees the write buttons (the control of the read-only case)', async () => {
    const endpoint = (
      await http(api.url, 'POST', '/int/v1/webhook-endpoints', {
        key: acme.key,
        body: { webhook_endpoint: { url: 'https://hooks.example.com/write', events: ['warehouse.created'] } },
      })
    ).body.webhook_endpoint;
    const opened = await http(api.url, 'POST', '/int/v1/portal-sessions', {
      key: acme.key,
      body: { portal_session: { permissions: ['*'] } },
    });
    const { context, page } = await newPage();
    try {
      await page.goto(opened.body.portal_session.url);
      await page.getByRole('button', { name: 'Add endpoint' }).waitFor();
      await page.getByRole('link', { name: endpoint.url }).click();
      await page.getByRole('heading', { name: 'Delivery log' }).waitFor();
      const shown: Record<string, boolean> = {};
      for (const name of WRITE_BUTTONS)
        shown[name] = (await page.getByRole('button', { name, exact: true }).count()) > 0;
      expect(shown).toEqual(Object.fromEntries(WRITE_BUTTONS.map((name) => [name, true])));
    } finally {
      await context.close();
    }
  });

  it('a portal session with read permissions shows no write buttons', async () => {
    const endpoint = (
      await http(api.url, 'POST', '/int/v1/webhook-endpoints', {
        key: acme.key,
        body: { webhook_endpoint: { url: 'https://hooks.example.com/read', events: ['warehouse.created'] } },
      })
    ).body.webhook_endpoint;
    const opened = await http(api.url, 'POST', '/int/v1/portal-sessions', {
      key: acme.key,
      body: { portal_session: { permissions: ['*:read'] } },
    });
    expect(opened.body.portal_session).toMatchObject({ read_only: true, permissions: ['*:read'] });
    const { context, page } = await newPage();
    try {
      await page.goto(opened.body.portal_session.url);
      // What it may read is there: the endpoint, its page, its delivery log.
      await page.getByRole('link', { name: endpoint.url }).waitFor();
      await page.getByText('read-only').first().waitFor();
      expect(await page.getByRole('button', { name: 'Add endpoint' }).count()).toBe(0);
      await page.getByRole('link', { name: endpoint.url }).click();
      await page.getByRole('heading', { name: endpoint.url }).waitFor();
      await page.getByRole('heading', { name: 'Delivery log' }).waitFor();
      await page.screenshot({ path: join(ARTIFACTS, 'console-read-permissions.png'), fullPage: true });
      for (const name of WRITE_BUTTONS)
        expect({ name, count: await page.getByRole('button', { name, exact: true }).count() }).toEqual({
          name,
          count: 0,
        });
    } finally {
      await context.close();
    }
  });
});
