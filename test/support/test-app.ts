import { randomBytes } from 'node:crypto';
import { Type } from '@nestjs/common';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ApiOptions, createApi } from '@wharf/api';
import { composeWharf } from '@wharf/webhooks';
import { Client } from 'pg';
import {
  AppConfig,
  deleteKeysWithPrefix,
  dropDatabase,
  ensureDatabase,
  loadConfig,
  runMigrations,
} from '@wharf/core';

export const BASE_DATABASE_URL =
  process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A configuration with its own database and queue prefix, so suites never share state. */
export function testConfig(env: Record<string, string> = {}): AppConfig {
  const id = `${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const database = new URL(BASE_DATABASE_URL);
  database.pathname = `/wharf_test_${id}`;
  return loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: database.toString(),
    REDIS_URL,
    QUEUE_PREFIX: `wharf-test-${id}`,
    PORT: '0',
    ...env,
  });
}

/** The environment of a process (api, worker, CLI, a script) using `config`'s database and queue prefix. */
export function processEnv(config: AppConfig, extra: Record<string, string> = {}): Record<string, string> {
  return {
    NODE_ENV: 'test',
    DATABASE_URL: config.databaseUrl,
    REDIS_URL: config.redisUrl,
    QUEUE_PREFIX: config.queuePrefix,
    ...extra,
  };
}

export async function prepareDatabase(config: AppConfig, extensions?: Type[]): Promise<void> {
  await ensureDatabase(config.databaseUrl);
  await runMigrations(config.databaseUrl, composeWharf(config, extensions).manifests);
}

/** Runs one statement on the configuration's database over a connection of its own; returns the rows. */
export async function query(config: AppConfig, sql: string, params: unknown[] = []): Promise<any[]> {
  const client = new Client({ connectionString: config.databaseUrl });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows;
  } finally {
    await client.end();
  }
}

export async function deleteQueueKeys(config: AppConfig): Promise<void> {
  await deleteKeysWithPrefix(config, config.queuePrefix);
}

export interface TestApi {
  config: AppConfig;
  app: NestFastifyApplication;
  url: string;
  /** Stops the api; drops the database and queue keys unless `keepData`. */
  close(options?: { keepData?: boolean }): Promise<void>;
}

/** Boots the real api (Fastify, PostgreSQL, Redis) on a free port against a fresh, migrated database. */
export async function startApi(
  options: {
    config?: AppConfig;
    env?: Record<string, string>;
    extensions?: Type[];
    /** Runs before the routes are registered (e.g. to add a Fastify `onRoute` hook). */
    beforeListen?: (app: NestFastifyApplication) => void;
    /** Where the api's JSON logs go instead of stdout. */
    logDestination?: ApiOptions['logDestination'];
    /** Told of each stage of the request pipeline as it starts. */
    trace?: ApiOptions['trace'];
  } = {},
): Promise<TestApi> {
  const config = options.config ?? testConfig(options.env);
  await prepareDatabase(config, options.extensions);
  const app = await createApi(config, {
    extensions: options.extensions,
    logDestination: options.logDestination,
    trace: options.trace,
  });
  options.beforeListen?.(app);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.getHttpServer().address() as { port: number };
  return {
    config,
    app,
    url: `http://127.0.0.1:${address.port}`,
    async close({ keepData = false } = {}) {
      await app.close();
      if (!keepData) {
        await dropDatabase(config.databaseUrl);
        await deleteQueueKeys(config);
      }
    },
  };
}
