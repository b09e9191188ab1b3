#!/usr/bin/env node
// `npm run lint:openapi`: builds the OpenAPI document the api serves at /docs-json (from the TypeScript
// sources, against a scratch database that is dropped afterwards) and lints it with Redocly and Spectral.
// Rulesets: redocly.yaml and .spectral.yaml. `--document FILE` lints that file instead of building one;
// `--write FILE` keeps the document built.
'use strict';
const { spawnSync } = require('node:child_process');
const { copyFileSync, mkdtempSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');

async function buildDocument(file) {
  process.env.SWC_NODE_PROJECT ??= join(ROOT, 'tsconfig.json');
  require('@swc-node/register');
  const { loadConfig, dropDatabase } = require('../libs/core/src');
  const { describeApi } = require('../apps/cli/src/clients/api-description');
  const database = new URL(process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  const id = `${Date.now().toString(36)}_${process.pid}`;
  database.pathname = `/wharf_openapi_${id}`;
  const config = loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: database.toString(),
    REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
    QUEUE_PREFIX: `wharf-openapi-${id}`,
    PORT: '0',
  });
  try {
    const { document } = await describeApi(config);
    writeFileSync(file, JSON.stringify(document, null, 2));
  } finally {
    await dropDatabase(config.databaseUrl);
  }
}

function run(bin, args) {
  const result = spawnSync(join(ROOT, 'node_modules', '.bin', bin), args, {
    cwd: ROOT,
    stdio: 'inherit',
    // No update checks or usage reports from the linters (the machine may have no internet).
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  });
  return result.status === 0;
}

async function main() {
  const given = process.argv.indexOf('--document');
  const dir = mkdtempSync(join(tmpdir(), 'wharf-openapi-'));
  try {
    const file = given >= 0 ? process.argv[given + 1] : join(dir, 'openapi.json');
    if (given < 0) await buildDocument(file);
    const write = process.argv.indexOf('--write');
    if (write >= 0) copyFileSync(file, process.argv[write + 1]);
    const redocly = run('redocly', ['lint', '--config', 'redocly.yaml', '--format', 'stylish', file]);
    const spectral = run('spectral', [
      'lint',
      '--ruleset',
      '.spectral.yaml',
      '--fail-severity',
      'error',
      file,
    ]);
    process.exitCode = redocly && spectral ? 0 : 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(),
  (error) => {
    process.stderr.write(`lint:openapi: ${error.stack ?? error}\n`);
    process.exit(1);
  },
);
