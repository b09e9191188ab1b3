#!/usr/bin/env node
// Adds lock entries for platform-specific optional packages (other OS/CPU builds of swc, esbuild,
// rollup, msgpackr-extract, ...) that a filtered registry mirror cannot resolve. Without them `npm ci`
// calls the lock "out of sync". The entries carry os/cpu/libc, so npm skips them on other platforms,
// exactly as it does with a lock written against the full registry. Run after `npm install`.
const fs = require('node:fs');
const path = require('node:path');

const file = path.join(__dirname, '..', 'package-lock.json');
const lock = JSON.parse(fs.readFileSync(file, 'utf8'));
const OS = [
  'darwin',
  'linux',
  'win32',
  'freebsd',
  'openbsd',
  'netbsd',
  'android',
  'sunos',
  'aix',
  'openharmony',
];
const CPU = {
  x64: 'x64',
  arm64: 'arm64',
  arm: 'arm',
  ia32: 'ia32',
  ppc64: 'ppc64',
  s390x: 's390x',
  riscv64: 'riscv64',
  loong64: 'loong64',
  mips64el: 'mips64el',
  wasm32: 'wasm32',
  gnueabihf: 'arm',
  musleabihf: 'arm',
};

function platform(name) {
  const parts = name.split('/').pop().split('-');
  const entry = {};
  const os =
    parts.find((p) => OS.includes(p)) ??
    (parts.includes('windows') ? 'win32' : parts.includes('macos') ? 'darwin' : undefined);
  const cpu = parts
    .map((p) => CPU[p])
    .filter(Boolean)
    .pop();
  if (os) entry.os = [os];
  if (cpu) entry.cpu = [cpu];
  if (parts.includes('musl') || parts.includes('musleabihf')) entry.libc = ['musl'];
  else if (os === 'linux' && (parts.includes('gnu') || parts.includes('gnueabihf'))) entry.libc = ['glibc'];
  return entry;
}

let added = 0;
for (const [key, pkg] of Object.entries(lock.packages)) {
  for (const [name, spec] of Object.entries(pkg.optionalDependencies ?? {})) {
    const nested = `${key ? `${key}/` : ''}node_modules/${name}`;
    if (lock.packages[nested] || lock.packages[`node_modules/${name}`]) continue;
    const version = String(spec).replace(/^[\^~=]/, '');
    lock.packages[`node_modules/${name}`] = {
      version,
      ...platform(name),
      optional: true,
      ...(pkg.dev ? { dev: true } : {}),
    };
    added++;
  }
}
fs.writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
process.stdout.write(`complete-lockfile: added ${added} platform-specific optional entries\n`);
