import Module, { createRequire } from 'node:module';

/**
 * Module-loading changes that only pay off if they run before the libraries they concern are first
 * required: a process's preload imports this file by its own path (`@wharf/core/host/…`, not through the
 * `@wharf/core` index, which loads those libraries) and calls them before anything else is imported.
 * They cut idle and peak RSS of the api (issue 19) without changing what runs: what is deferred still
 * loads, at its first use.
 */

/** What a deferred module exports: an object, or a function (with properties) as CommonJS modules may. */
export type DeferredShape = 'object' | 'function';

export interface DeferredModule {
  /** The package whose require() of `request` is deferred (resolution starts from its location). */
  from: string;
  request: string;
  shape: DeferredShape;
  /**
   * The real exports carry `__esModule: true` (compiled from an ES module): the stand-in says so without
   * loading it, so that `__importStar`/`__importDefault`, which read that flag at once, keep the stand-in.
   */
  esModule?: true;
}

const deferredFiles = new Map<string, { loaded: boolean }>();

/** Deferred modules that have been loaded for real, by file (tests, and measuring what a workload touches). */
export function loadedDeferredModules(): string[] {
  return [...deferredFiles].filter(([, state]) => state.loaded).map(([file]) => file);
}

function resolveFrom(from: string, request: string): string | undefined {
  try {
    return createRequire(require.resolve(from)).resolve(request);
  } catch {
    // A package that moved or dropped the file in an upgrade: nothing to defer, it loads as it always did.
    return undefined;
  }
}

/**
 * Puts a stand-in for each module in the require cache, so the packages that require it at load time
 * get the stand-in, and the real module is loaded when its exports are first touched (a property read,
 * a call, a key listing). The stand-in then forwards everything to the real exports.
 */
export function deferModules(modules: DeferredModule[]): void {
  for (const { from, request, shape, esModule } of modules) {
    const file = resolveFrom(from, request);
    if (!file || require.cache[file] || deferredFiles.has(file)) continue;
    const state = { loaded: false };
    deferredFiles.set(file, state);
    const standIn = new Module(file);
    standIn.filename = file;
    standIn.loaded = true;
    // A function target for function-shaped modules, so the stand-in is callable and constructible too.
    const target: object = shape === 'function' ? function deferred() {} : Object.create(null);
    let real: any;
    const load = (): any => {
      if (state.loaded) return real;
      if (require.cache[file] === standIn) delete require.cache[file];
      real = createRequire(file)(file);
      state.loaded = true;
      // Proxy invariants: what the traps report must agree with the target's own non-configurable keys.
      Object.defineProperties(target, Object.getOwnPropertyDescriptors(real));
      Object.setPrototypeOf(target, Object.getPrototypeOf(real));
      return real;
    };
    standIn.exports = new Proxy(target, {
      get: (_, key) => (key === '__esModule' && esModule && !state.loaded ? true : Reflect.get(load(), key)),
      set: (_, key, value) => Reflect.set(load(), key, value),
      has: (_, key) => Reflect.has(load(), key),
      ownKeys: () => (load(), Reflect.ownKeys(target)),
      getOwnPropertyDescriptor: (_, key) => (load(), Reflect.getOwnPropertyDescriptor(target, key)),
      defineProperty: (_, key, descriptor) => Reflect.defineProperty(load(), key, descriptor),
      deleteProperty: (_, key) => Reflect.deleteProperty(load(), key),
      getPrototypeOf: () => Object.getPrototypeOf(load()),
      apply: (_, thisArg, args) => Reflect.apply(load(), thisArg, args),
      construct: (_, args, newTarget) =>
        Reflect.construct(load(), args, newTarget === standIn.exports ? load() : newTarget),
    });
    require.cache[file] = standIn;
  }
}

/**
 * OpenTelemetry's API, which prom-client's CPU metric loads for exemplars (off): deferred in the api and
 * the worker, so that a process without tracing configured loads no OpenTelemetry module.
 */
export const OPENTELEMETRY_API: DeferredModule = {
  from: 'prom-client',
  request: '@opentelemetry/api',
  shape: 'object',
};

/**
 * Modules the api's dependencies load at boot that the api uses rarely or never, so an idle api holds less
 * heap:
 * - TypeORM's drivers for other databases (DriverFactory requires all of them; Wharf runs on PostgreSQL),
 *   and its SQL formatter and highlighter (for logging queries, which production does not).
 * - libphonenumber-js with its full metadata: class-validator's index loads it for `@IsPhoneNumber()`.
 * - cron-parser and luxon: BullMQ's queue loads them for repeatable jobs and job schedulers.
 * - OpenTelemetry's API: prom-client's CPU metric loads it for exemplars, which are off.
 * - glob and what it loads (minimatch, path-scurry, lru-cache): TypeORM loads it for entity and migration
 *   paths given as patterns; Wharf gives classes.
 * Modules imported through `__importDefault`/`__importStar` that are not flagged `__esModule` cannot be
 * deferred this way: those helpers list their exports at once (js-yaml in @nestjs/swagger).
 */
export const RARELY_USED_MODULES: DeferredModule[] = [
  ...[
    'aurora-mysql/AuroraMysqlDriver',
    'better-sqlite3/BetterSqlite3Driver',
    'capacitor/CapacitorDriver',
    'cockroachdb/CockroachDriver',
    'cordova/CordovaDriver',
    'expo/ExpoDriverFactory',
    'mongodb/MongoDriver',
    'mysql/MysqlDriver',
    'nativescript/NativescriptDriver',
    'oracle/OracleDriver',
    'react-native/ReactNativeDriver',
    'sap/SapDriver',
    'spanner/SpannerDriver',
    'sqljs/SqljsDriver',
    'sqlite/SqliteDriver',
    'sqlserver/SqlServerDriver',
  ].map((driver): DeferredModule => ({ from: 'typeorm', request: `./driver/${driver}`, shape: 'object' })),
  { from: 'typeorm', request: 'glob', shape: 'object', esModule: true },
  { from: 'typeorm', request: '@sqltools/formatter', shape: 'object' },
  { from: 'typeorm', request: 'sql-highlight', shape: 'object' },
  { from: 'class-validator', request: 'libphonenumber-js/max', shape: 'function' },
  { from: 'bullmq', request: 'cron-parser', shape: 'function' },
  OPENTELEMETRY_API,
];

/**
 * Loads pg without loading Node's built-in fetch. pg (8.x) decides when it loads whether it runs on
 * Cloudflare Workers: with a `navigator` (Node 21 and later) it reads its user agent, without one (Node 20)
 * it constructs a `Response`, which loads all of Node's bundled undici in a process that never fetches.
 * On Node 20, `Response` is hidden for that moment, so pg takes the Node path at once, as it does anyway.
 * `navigator` is checked first: on Node 22 and later, merely reading `Response`'s descriptor loads undici.
 */
export function loadPgWithoutFetch(): void {
  if ('navigator' in globalThis) return;
  const descriptor = Object.getOwnPropertyDescriptor(globalThis, 'Response');
  if (!descriptor?.configurable) return;
  const pg = resolveFrom('pg', 'pg');
  if (!pg || require.cache[pg]) return;
  Object.defineProperty(globalThis, 'Response', { value: undefined, configurable: true, writable: true });
  try {
    createRequire(pg)(pg);
  } finally {
    Object.defineProperty(globalThis, 'Response', descriptor);
  }
}

/**
 * Loads @nestjs/common with its console logger's date formatter built at its first use. The logger builds
 * an Intl.DateTimeFormat as its module loads, which maps ICU's date and time-zone data (about 8 MB of RSS)
 * into a process that logs through pino and so never formats a date with it.
 */
export function loadNestCommonWithLazyDateFormat(): void {
  const file = resolveFrom('@nestjs/common', '@nestjs/common');
  if (!file || require.cache[file]) return;
  const Real = Intl.DateTimeFormat;
  const lazy = function (...args: ConstructorParameters<typeof Intl.DateTimeFormat>) {
    let real: Intl.DateTimeFormat | undefined;
    return new Proxy(Object.create(Real.prototype) as Intl.DateTimeFormat, {
      get: (_, key) => {
        real ??= new Real(...args);
        const value: unknown = Reflect.get(real, key);
        return typeof value === 'function' ? (value as () => unknown).bind(real) : value;
      },
    });
  };
  Intl.DateTimeFormat = lazy as unknown as typeof Intl.DateTimeFormat;
  try {
    createRequire(file)(file);
  } finally {
    Intl.DateTimeFormat = Real;
  }
}
