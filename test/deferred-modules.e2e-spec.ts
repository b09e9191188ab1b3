import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { dropDatabase } from '@wharf/core';
import { ROOT, ensureBuilt } from './support/processes';
import { deleteQueueKeys, prepareDatabase, processEnv, testConfig } from './support/test-app';

const run = promisify(execFile);

/** Counts the date formatters built for real (each maps ICU's date data into the process). */
const COUNT_DATE_FORMATS = `
  let dateFormats = 0;
  const RealFormat = Intl.DateTimeFormat;
  Intl.DateTimeFormat = function (...args) { dateFormats++; return new RealFormat(...args); };`;
const LOADER = join(ROOT, 'dist', 'libs', 'core', 'src', 'host', 'deferred-modules.loader.js');
const API = join(ROOT, 'dist', 'apps', 'api', 'src');
const WORKER = join(ROOT, 'dist', 'apps', 'worker', 'src');
const CORE = join(ROOT, 'dist', 'libs', 'core', 'src', 'index.js');
const ACCOUNTS = join(ROOT, 'dist', 'libs', 'accounts', 'src', 'index.js');

/**
 * In a plain Node process, as the api's preload runs it: Jest keeps a module registry of its own, in
 * which stand-ins put into Node's require cache would never be seen.
 */
async function inNode(body: string, prelude = ''): Promise<any> {
  const script = `
    ${prelude}
    const loader = require(${JSON.stringify(LOADER)});
    loader.deferModules(loader.RARELY_USED_MODULES);
    loader.loadPgWithoutFetch();
    loader.loadNestCommonWithLazyDateFormat();
    const undici = () => process.moduleLoadList.some((name) => name.includes('undici'));
    ${body}`;
  const { stdout } = await run(process.execPath, ['-e', script], { cwd: ROOT });
  return JSON.parse(stdout);
}

/**
 * Runs `script` in a plain Node process, as a built api or worker, with a database and queue prefix of its
 * own and no OTEL_* variable inherited from the test's environment; what it printed last, parsed.
 */
async function booted(script: string, extra: Record<string, string> = {}): Promise<any> {
  const config = testConfig();
  await prepareDatabase(config);
  try {
    const inherited = Object.entries(process.env).filter(([name]) => !name.startsWith('OTEL_'));
    const env = { ...Object.fromEntries(inherited), ...processEnv(config, { LOG_LEVEL: 'error', ...extra }) };
    const { stdout } = await run(process.execPath, ['-e', script], { cwd: ROOT, env });
    return JSON.parse(stdout.trim().split('\n').pop()!);
  } finally {
    await dropDatabase(config.databaseUrl);
    await deleteQueueKeys(config);
  }
}

describe('deferred modules (api preload)', () => {
  beforeAll(() => ensureBuilt(), 300_000);

  it('keeps them and Node’s fetch unloaded while TypeORM, class-validator, BullMQ and pg load', async () => {
    const result = await inNode(`
      require('typeorm'); require('class-validator'); require('bullmq'); require('pg');
      const files = (part) => Object.keys(require.cache).filter((file) => file.includes(part)).length;
      console.log(JSON.stringify({
        loaded: loader.loadedDeferredModules(),
        // The stand-in's file only: none of what the real module would load.
        cached: [
          files('/libphonenumber-js/'),
          files('/luxon/'),
          files('/typeorm/driver/mysql/'),
          files('/typeorm/node_modules/minimatch/'),
        ],
        undici: undici(),
        response: typeof Response,
      }));
    `);
    expect(result).toEqual({ loaded: [], cached: [1, 0, 1, 0], undici: false, response: 'function' });
  });

  it('loads each at its first use, which then behaves as the real module', async () => {
    const result = await inNode(`
      const { isPhoneNumber } = require('class-validator');
      const { getNextMillis } = require('bullmq');
      const { DataSource } = require('typeorm');
      let mysql;
      try { new DataSource({ type: 'mysql' }); } catch (error) { mysql = error.name; }
      const next = getNextMillis(Date.UTC(2026, 0, 1, 10, 7), { pattern: '*/15 * * * *', tz: 'UTC' });
      // TypeORM's own glob, as its DirectoryExportedClassesLoader has it (through __importStar).
      const glob = require('node:module').createRequire(require.resolve('typeorm'))('glob');
      const globbed = glob.sync('package.json', { cwd: process.cwd() });
      const { Client } = require('pg');
      console.log(JSON.stringify({
        phone: [isPhoneNumber('+14155552671'), isPhoneNumber('+1415555')],
        mysql,
        next: new Date(next).toISOString(),
        glob: [globbed, glob.__esModule],
        loaded: loader.loadedDeferredModules().map((file) => file.split('node_modules/').pop()),
        pg: typeof Client,
        undici: undici(),
      }));
    `);
    expect(result).toEqual({
      phone: [true, false],
      // The real MysqlDriver ran: it looks for the mysql package, which Wharf does not install.
      mysql: 'DriverPackageNotInstalledError',
      next: '2026-01-01T10:15:00.000Z',
      // What the stand-in claimed before loading it: the real glob is flagged too.
      glob: [['package.json'], true],
      loaded: expect.arrayContaining([
        'libphonenumber-js/max/index.cjs',
        'cron-parser/lib/parser.js',
        'typeorm/driver/mysql/MysqlDriver.js',
        'glob/dist/commonjs/index.js',
      ]),
      pg: 'function',
      undici: false,
    });
    expect(result.loaded).toHaveLength(4);
  });

  // pg decides by `navigator` where Node has one (21 and later) and by constructing a Response where it has
  // not (20), so the preload hides Response only on 20; on every supported version fetch works afterwards.
  it('leaves Node’s fetch working, and loaded at its first use, on this Node version', async () => {
    const result = await inNode(`
      require('pg');
      const before = undici();
      new Response('ok').text().then((text) => {
        console.log(JSON.stringify({ navigator: 'navigator' in globalThis, before, text, after: undici() }));
      });
    `);
    const major = Number(process.versions.node.split('.')[0]);
    expect(result).toEqual({ navigator: major >= 21, before: false, text: 'ok', after: true });
  });

  it('builds Nest’s console logger its date formatter at its first line, not when Nest loads', async () => {
    const result = await inNode(
      `
      const { ConsoleLogger } = require('@nestjs/common');
      const loaded = dateFormats;
      let line = '';
      const write = process.stdout.write;
      process.stdout.write = (chunk) => ((line += chunk), true);
      new ConsoleLogger('Check', { colors: false }).log('hello');
      process.stdout.write = write;
      console.log(JSON.stringify({ loaded, logged: dateFormats, line }));`,
      COUNT_DATE_FORMATS,
    );
    expect(result).toMatchObject({ loaded: 0, logged: 1 });
    // The timestamp as the real formatter writes it (`11/28/2026, 2:40:12 PM` in an English locale).
    expect(result.line).toContain(String(new Date().getFullYear()));
    expect(result.line).toMatch(/\d{1,2}:\d{2}:\d{2}.*\[Check\] hello/);
  });

  // Only workers put events on the queue: the api writes them to PostgreSQL and never needs BullMQ. It logs
  // through pino: Nest's date formatter (ICU's date data) stays unbuilt too.
  it('leaves BullMQ unloaded and no date formatter built in an api that has booted, served a write and closed', async () => {
    const script = `
        ${COUNT_DATE_FORMATS}
        require(${JSON.stringify(join(API, 'boot.preload.js'))});
        const { createApi } = require(${JSON.stringify(join(API, 'api.js'))});
        const { loadConfig } = require(${JSON.stringify(CORE)});
        const { AccountsService } = require(${JSON.stringify(ACCOUNTS)});
        (async () => {
          const app = await createApi(loadConfig());
          await app.listen({ port: 0, host: '127.0.0.1' });
          const { api_key } = await app.get(AccountsService).createCompany('Modules');
          const res = await app.inject({
            method: 'POST',
            url: '/inventory/int/v1/warehouses',
            headers: { authorization: 'Bearer ' + api_key },
            payload: { warehouse: { name: 'W', address: 'a', city: 'c', state: 's', zip: 'z', capacity: 1 } },
          });
          const files = (part) => Object.keys(require.cache).filter((file) => file.includes(part)).length;
          await app.close();
          console.log(JSON.stringify({
            status: res.statusCode,
            bullmq: files('/node_modules/bullmq/'),
            nestBullmq: files('/node_modules/@nestjs/bullmq/'),
            dateFormats,
          }));
        })().catch((error) => { console.error(error); process.exit(1); });`;
    expect(await booted(script)).toEqual({ status: 201, bullmq: 0, nestBullmq: 0, dateFormats: 0 });
  }, 60_000);

  // Tracing is loaded by startTracing only when an OTLP endpoint is set: without one, neither the SDK nor
  // the API prom-client requires (deferred by each process's preload) is loaded. The same script with an
  // endpoint set loads them: the check can see them.
  describe('OpenTelemetry, loaded only with an OTLP endpoint set', () => {
    const PROCESSES = {
      api: `
        require(${JSON.stringify(join(API, 'boot.preload.js'))});
        const { createApi } = require(${JSON.stringify(join(API, 'api.js'))});
        const { AccountsService } = require(${JSON.stringify(ACCOUNTS)});
        const start = async (config) => {
          const app = await createApi(config);
          await app.listen({ port: 0, host: '127.0.0.1' });
          const { api_key } = await app.get(AccountsService).createCompany('Modules');
          const res = await app.inject({
            method: 'POST',
            url: '/fleet/int/v1/orders',
            headers: { authorization: 'Bearer ' + api_key },
            payload: { order: { reference: 'PO-1' } },
          });
          if (res.statusCode !== 201) throw new Error('order not created: ' + res.statusCode);
          return app;
        };`,
      worker: `
        require(${JSON.stringify(join(WORKER, 'boot.preload.js'))});
        const { createWorker } = require(${JSON.stringify(join(WORKER, 'worker.js'))});
        const start = (config) => createWorker(config);`,
    };

    async function openTelemetryFiles(process_: keyof typeof PROCESSES, otel: Record<string, string>) {
      const script = `
          ${PROCESSES[process_]}
          const { loadConfig, startTracing } = require(${JSON.stringify(CORE)});
          const { loadedDeferredModules } = require(${JSON.stringify(LOADER)});
          (async () => {
            await startTracing('wharf-${process_}');
            const app = await start(loadConfig());
            // Files of @opentelemetry packages loaded for real: not the stand-in of the deferred API.
            const deferred = new Set(loadedDeferredModules());
            const standIn = (file) =>
              file.endsWith('/@opentelemetry/api/build/src/index.js') && !deferred.has(file);
            const files = Object.keys(require.cache).filter(
              (file) => file.includes('/node_modules/@opentelemetry/') && !standIn(file),
            );
            await app.close();
            console.log(JSON.stringify({ packages: [...new Set(files.map((file) => file.split('/node_modules/')[1].split('/').slice(0, 2).join('/')))].sort() }));
          })().catch((error) => { console.error(error); process.exit(1); });`;
      return (await booted(script, otel)).packages as string[];
    }

    // Nothing listens there: spans that fail to export are dropped, as with a collector down.
    const ENDPOINT_SET = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' };

    it.each(['api', 'worker'] as const)(
      'none in the %s with no OTEL_* variable set; the SDK with OTEL_EXPORTER_OTLP_ENDPOINT',
      async (name) => {
        expect(await openTelemetryFiles(name, {})).toEqual([]);
        expect(await openTelemetryFiles(name, ENDPOINT_SET)).toEqual(
          expect.arrayContaining([
            '@opentelemetry/api',
            '@opentelemetry/sdk-trace-node',
            '@opentelemetry/exporter-trace-otlp-proto',
          ]),
        );
      },
      60_000,
    );
  });
});
