import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { Server, createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, extname, join, relative } from 'node:path';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { DataSource } from 'typeorm';
import { createCompany, TestCompany } from './support/accounts';
import { CHROMIUM, chromiumSuite } from './support/chromium';
import { CLI, ROOT, assertBuilt, runNode } from './support/processes';
import { startApi, TestApi } from './support/test-app';

const APP = join(ROOT, 'examples', 'ember-app');
const GENERATED_DIRS = ['adapters', 'models', 'serializers', 'transforms', 'services/wharf.js'];
const suite = chromiumSuite('Ember app browser test');

const TYPES: Record<string, string> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.txt': 'text/plain',
};

/** Serves the built app on its own port: another origin than the api's. */
async function serveStatic(dir: string): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://app').pathname;
    let file = join(dir, decodeURIComponent(path));
    if (!file.startsWith(dir) || !existsSync(file) || path.endsWith('/')) file = join(dir, 'index.html');
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
    res.end(readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}` };
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

suite('examples/ember-app: stock Ember Data against the api, from another origin', () => {
  let api: TestApi;
  let acme: TestCompany;
  let site: { server: Server; url: string };
  let built: string;
  let browser: Browser;
  let page: Page;
  const blocked: string[] = [];

  beforeAll(async () => {
    assertBuilt();
    built = await mkdtemp(join(tmpdir(), 'wharf-ember-app-'));
    // The app's build (Vite + Embroider) is the slow part: start it first.
    const build = promisify(execFile)(
      process.execPath,
      [
        join(dirname(require.resolve('vite/package.json', { paths: [APP] })), 'bin', 'vite.js'),
        'build',
        // Minifying is most of the build's time and proves nothing here.
        '--minify',
        'false',
        '--outDir',
        built,
        '--emptyOutDir',
      ],
      {
        cwd: APP,
        env: { ...process.env, NODE_ENV: 'production' },
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    site = await serveStatic(built);
    api = await startApi({ env: { CORS_ORIGINS: site.url } });
    acme = await createCompany(api, 'Ember Co');
    await build;
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    page = await browser.newPage();
    page.setDefaultTimeout(30_000);
    page.on('console', (message) => {
      if (/CORS|blocked/i.test(message.text())) blocked.push(message.text());
    });
    await page.addInitScript(
      ({ host, key }) => {
        (globalThis as any).localStorage.setItem('wharf.host', host);
        (globalThis as any).localStorage.setItem('wharf.apiKey', key);
      },
      { host: api.url, key: acme.key },
    );
  }, 600_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => site?.server.close(resolve));
    await api?.close();
    if (built) await rm(built, { recursive: true, force: true });
  });

  it('uses the generated models, adapters and serializers as `client:ember` writes them', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wharf-ember-gen-'));
    try {
      const run = runNode(CLI, ['client:ember', dir], {
        DATABASE_URL: api.config.databaseUrl,
        REDIS_URL: api.config.redisUrl,
        QUEUE_PREFIX: api.config.queuePrefix,
        NODE_ENV: 'test',
      });
      // Exits cleanly; when it does not, its output is the failure message.
      const { code } = await run.exited;
      expect(code === 0 ? '' : `exit ${code}: ${run.output()}`).toBe('');
      const fresh = await filesUnder(dir);
      const committed = (await filesUnder(join(APP, 'app'))).filter((file) =>
        GENERATED_DIRS.some((prefix) => file.startsWith(prefix)),
      );
      expect(fresh).toEqual(committed);
      for (const file of fresh) {
        const same = readFileSync(join(dir, file), 'utf8') === readFileSync(join(APP, 'app', file), 'utf8');
        expect({ file, stale: !same }).toEqual({ file, stale: false });
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('runs findAll, query + meta, findRecord, creates, updates children, deletes and maps a 422 onto record.errors', async () => {
    expect(new URL(site.url).origin).not.toBe(new URL(api.url).origin);
    await page.goto(site.url);
    await page.waitForFunction(() => (globalThis as any).wharfApp?.store);
    await page.locator('h1', { hasText: 'Warehouses' }).waitFor();

    const result = await page.evaluate(async () => {
      const { store } = (globalThis as any).wharfApp;
      const attrs = (name: string) => ({
        name,
        address: '1 Quay',
        city: 'Rotterdam',
        state: 'ZH',
        zip: '3011',
        capacity: 10,
      });
      const out: Record<string, unknown> = {};

      // create without children, and with new embedded children (to-many and to-one)
      const plain = store.createRecord('warehouse', attrs('Plain'));
      await plain.save();
      out.plainId = plain.id;
      const full = store.createRecord('warehouse', attrs('Full'));
      full.location = store.createRecord('location', { name: 'HQ', city: 'Rotterdam' });
      full.sections.push(store.createRecord('warehouse-section', { name: 'A' }));
      full.sections.push(store.createRecord('warehouse-section', { name: 'B' }));
      full.docks.push(store.createRecord('warehouse-dock', { dockNumber: 'D1', direction: 'inbound' }));
      await full.save();
      out.created = {
        id: full.id,
        sections: full.sections.map((s: any) => [s.name, s.isNew, typeof s.id]),
        docks: full.docks.map((d: any) => [d.dockNumber, d.direction, d.status]),
        location: full.location?.name,
      };
      out.locationId = full.location?.id;

      // update with changed children: rename one, remove one, add one; save twice (nothing sent twice)
      const [a, b] = full.sections;
      a.name = 'A renamed';
      full.sections.splice(full.sections.indexOf(b), 1);
      full.sections.push(store.createRecord('warehouse-section', { name: 'C' }));
      full.capacity = 42;
      await full.save();
      await full.save();
      out.updated = { capacity: full.capacity, sections: full.sections.map((s: any) => s.name).sort() };

      // findAll, query with limit/sort/query and meta, findRecord (fresh from the server)
      out.findAll = (await store.findAll('warehouse', { reload: true })).map((w: any) => w.name).sort();
      const page1 = await store.query('warehouse', { limit: 1, sort: 'name', query: 'u' });
      out.query = { names: page1.map((w: any) => w.name), meta: page1.meta };
      const found = await store.findRecord('warehouse', full.id, { reload: true });
      out.found = {
        name: found.name,
        sections: found.sections.map((s: any) => s.name).sort(),
        location: found.location?.name,
      };
      try {
        await store.findRecord('warehouse', '00000000-0000-4000-8000-000000000000');
        out.missing = 'found';
      } catch (error: any) {
        out.missing =
          error?.constructor?.name === 'NotFoundError' || error?.isAdapterError
            ? error.message
            : String(error);
      }

      // a 422 lands in record.errors.<field>
      const invalid = store.createRecord('warehouse', { ...attrs('x'), name: null, capacity: -1 });
      try {
        await invalid.save();
        out.invalid = 'saved';
      } catch {
        out.invalid = {
          name: invalid.errors.errorsFor('name').map((e: any) => e.message),
          capacity: invalid.errors.errorsFor('capacity').map((e: any) => e.message),
          isValid: invalid.isValid,
        };
      }
      invalid.unloadRecord();

      // delete
      await plain.destroyRecord();
      out.afterDelete = (await store.findAll('warehouse', { reload: true })).map((w: any) => w.name).sort();
      return out;
    });

    expect(result.created).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      sections: [
        ['A', false, 'string'],
        ['B', false, 'string'],
      ],
      docks: [['D1', 'inbound', 'available']],
      location: 'HQ',
    });
    expect(result.updated).toEqual({ capacity: 42, sections: ['A renamed', 'C'] });
    expect(result.findAll).toEqual(['Full', 'Plain']);
    expect(result.query).toEqual({
      names: ['Full'],
      meta: expect.objectContaining({ total: 1, per_page: 1, current_page: 1 }),
    });
    expect(result.found).toEqual({ name: 'Full', sections: ['A renamed', 'C'], location: 'HQ' });
    expect(result.missing).toMatch(/returned a 404/);
    expect(result.invalid).toEqual({
      name: ['name is required.'],
      capacity: [expect.stringMatching(/capacity/)],
      isValid: false,
    });
    expect(result.afterDelete).toEqual(['Full']);

    // The server holds exactly what the store shows: saving twice created no child and no location twice.
    const db = api.app.get(DataSource);
    const id = (result.created as { id: string }).id;
    const sections = await db.query(
      'SELECT name FROM warehouse_sections WHERE warehouse_uuid = $1 ORDER BY name',
      [id],
    );
    expect(sections.map((row: { name: string }) => row.name)).toEqual(['A renamed', 'C']);
    expect(await db.query('SELECT dock_number FROM warehouse_docks WHERE warehouse_uuid = $1', [id])).toEqual(
      [{ dock_number: 'D1' }],
    );
    const locations = await db.query('SELECT uuid, name FROM locations WHERE company_uuid = $1', [acme.uuid]);
    expect(locations).toEqual([{ uuid: result.locationId, name: 'HQ' }]);
    // The app's own template renders the live findAll result.
    await page.locator('#warehouses li', { hasText: 'Full (2 sections)' }).waitFor();
    expect(blocked).toEqual([]);
  });
});
