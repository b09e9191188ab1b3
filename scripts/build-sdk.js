#!/usr/bin/env node
// Builds the extension SDK, @wharf/core, as an npm package: JavaScript and type declarations in
// dist/sdk/core, packed to dist/sdk/wharf-core-<version>.tgz. Extensions depend on it as a peer
// dependency (and as a dev dependency, for its types); at run time the host provides its own copy.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const out = path.join(root, 'dist', 'sdk');
const pkgDir = path.join(out, 'core');
const host = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

fs.rmSync(pkgDir, { recursive: true, force: true });
execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'libs/core/tsconfig.sdk.json'], {
  cwd: root,
  stdio: 'inherit',
});

// What an extension's own code touches: it must be the host's copy (see shared-modules.ts).
const required = ['@nestjs/common', '@nestjs/core', 'typeorm', 'class-validator', 'reflect-metadata'];
// What the SDK's declarations mention but an extension rarely uses; the host has them all.
const optional = [
  '@nestjs/typeorm',
  '@nestjs/swagger',
  '@nestjs/config',
  '@nestjs/bullmq',
  '@nestjs/platform-fastify',
  'class-transformer',
  'ioredis',
  'pg',
  'pino',
  'pluralize',
  'rxjs',
];
const range = (name) => {
  const version = host.dependencies[name];
  if (!version) throw new Error(`${name} is not a dependency of the host`);
  return version;
};
const pkg = {
  name: '@wharf/core',
  version: host.version,
  description: 'The Wharf extension SDK: @Extension, @ResourceModel, @Resource, resource hooks and services',
  license: host.license,
  main: 'index.js',
  types: 'index.d.ts',
  engines: host.engines,
  peerDependencies: Object.fromEntries([...required, ...optional].map((name) => [name, range(name)])),
  peerDependenciesMeta: Object.fromEntries(optional.map((name) => [name, { optional: true }])),
};
fs.writeFileSync(path.join(pkgDir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
const packed = execFileSync('npm', ['pack', '--silent', '--pack-destination', out], { cwd: pkgDir })
  .toString()
  .trim()
  .split('\n')
  .pop();
process.stdout.write(`${path.join(out, packed)}\n`);
