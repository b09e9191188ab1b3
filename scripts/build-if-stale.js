#!/usr/bin/env node
// `node scripts/build-if-stale.js`: runs `npm run build` only when a source of the build changed since the
// last successful build, so `npm run cli -- <command>` starts at once on a current build. The fingerprint
// is every source file's path, size and mtime: an edit, a checkout, a new or a deleted file all change it.
// `npm run build` records it: `--begin` before compiling (sources edited during the build make the next
// check build again), `--commit` once every step succeeded.
'use strict';
const { createHash } = require('node:crypto');
const { spawnSync } = require('node:child_process');
const {
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  readdirSync,
  statSync,
  writeFileSync,
} = require('node:fs');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');
const stampOf = (root) => join(root, 'dist', '.build-fingerprint');
const OUTPUTS = ['dist/apps/cli/src/main.js', 'dist/apps/api/src/main.js', 'dist/console/index.html'];
const SOURCE_DIRS = ['apps', 'libs', 'extensions', 'bench', 'fuzz', 'clients/typescript/src'];
const SOURCE_FILES = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'];
const SKIP = new Set(['node_modules', 'dist']);

function walk(root, dir, out) {
  let entries;
  try {
    entries = readdirSync(join(root, dir), { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    if (SKIP.has(entry.name)) continue;
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) walk(root, path, out);
    else if (entry.isFile()) out.push(path);
  }
}

function fingerprint(root = ROOT) {
  const files = [...SOURCE_FILES];
  for (const dir of SOURCE_DIRS) walk(root, dir, files);
  const hash = createHash('sha256');
  for (const file of files.sort()) {
    try {
      const { size, mtimeMs } = statSync(join(root, file));
      hash.update(`${file}\0${size}\0${mtimeMs}\n`);
    } catch {
      hash.update(`${file}\0missing\n`);
    }
  }
  return hash.digest('hex');
}

const read = (file) => (existsSync(file) ? readFileSync(file, 'utf8') : undefined);

/** Whether dist/ holds a successful build of the sources as they are now. */
function isCurrent(root = ROOT) {
  return OUTPUTS.every((file) => existsSync(join(root, file))) && read(stampOf(root)) === fingerprint(root);
}

/** Before a build: dist/ is about to change, and what it is built from is the sources as they are now. */
function begin(root = ROOT) {
  rmSync(stampOf(root), { force: true });
  mkdirSync(join(root, 'dist'), { recursive: true });
  writeFileSync(`${stampOf(root)}.pending`, fingerprint(root));
}

/** After every step of a build succeeded. */
function commit(root = ROOT) {
  if (existsSync(`${stampOf(root)}.pending`)) renameSync(`${stampOf(root)}.pending`, stampOf(root));
}

// Two commands started at once (two terminals, parallel tests) must not both write dist/: one builds, the
// other waits for it and finds the build current. A lock left by a killed build is taken over after a while.
const LOCK = join(ROOT, 'node_modules', '.wharf-build-lock');
const STALE_LOCK_MS = 10 * 60 * 1000;

function withLock(work) {
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
      try {
        if (Date.now() - statSync(LOCK).mtimeMs > STALE_LOCK_MS)
          rmSync(LOCK, { recursive: true, force: true });
      } catch {
        // released meanwhile
      }
      Atomics.wait(sleeper, 0, 0, 200);
    }
  }
  try {
    return work();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

/** Builds unless the build is current; returns the exit status of the build (0 when none was needed). */
function buildIfStale() {
  if (isCurrent()) return 0;
  return withLock(() => {
    if (isCurrent()) return 0;
    const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
    return build.status ?? 1;
  });
}

module.exports = { fingerprint, isCurrent, begin, commit, buildIfStale };

if (require.main === module) {
  switch (process.argv[2]) {
    case '--begin':
      begin();
      break;
    case '--commit':
      commit();
      break;
    default:
      process.exitCode = buildIfStale();
  }
}
