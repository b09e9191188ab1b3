#!/usr/bin/env node
// Fails on an import cycle inside a package: between files, or between the folders of its src (a folder is a
// layer: in libs/core config under database under resources under http under host; in libs/webhooks
// controllers over services over the store). Type-only imports count: a type is a dependency too.
const { existsSync, readdirSync } = require('node:fs');
const { join, relative, dirname, resolve, basename } = require('node:path');
const madge = require('madge');

const root = join(__dirname, '..');

/** Every package of the repository: libs/*, apps/* and extensions/*, each by its src folder. */
function allPackages() {
  return ['libs', 'apps', 'extensions'].flatMap((group) =>
    readdirSync(join(root, group), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(join(root, group, entry.name, 'src')))
      .map((entry) => `${group}/${entry.name}/src`),
  );
}

// Checked: the packages named on the command line (tests point it at a fixture), else every package.
const PACKAGES = process.argv.length > 2 ? process.argv.slice(2) : allPackages();

/**
 * The one exception: TypeORM entities related both ways (an order belongs to a driver, a driver has orders)
 * name each other's class in their relation decorators, so an import from one `*.entity.ts` to another is
 * left out of the graph. Anything else that closes such a loop (hooks, services, DTOs) still counts.
 */
const isEntity = (file) => basename(file).endsWith('.entity.ts');
const allowed = (from, to) => isEntity(from) && isEntity(to);

/** Strongly connected components of a graph with more than one node (Tarjan). */
function cycles(graph) {
  let index = 0;
  const stack = [];
  const info = new Map();
  const found = [];
  const visit = (node) => {
    info.set(node, { index, low: index, onStack: true });
    index++;
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!info.has(next)) {
        visit(next);
        info.get(node).low = Math.min(info.get(node).low, info.get(next).low);
      } else if (info.get(next).onStack)
        info.get(node).low = Math.min(info.get(node).low, info.get(next).index);
    }
    if (info.get(node).low === info.get(node).index) {
      const component = [];
      let member;
      do {
        member = stack.pop();
        info.get(member).onStack = false;
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!info.has(node)) visit(node);
  return found;
}

/** The file graph of a package and the graph of its folders, without the allowed entity edges. */
async function graphs(pkg) {
  // No tsconfig: path aliases (other packages) are left out, relative imports are this package's own.
  const result = await madge(resolve(pkg), {
    fileExtensions: ['ts', 'tsx'],
    excludeRegExp: [/\.spec\.tsx?$/],
    detectiveOptions: { ts: { skipTypeImports: false }, tsx: { skipTypeImports: false } },
  });
  const files = new Map();
  const folders = new Map();
  // A file at the package's root (an entry point, or tuning.ts) is a node of its own.
  const folderOf = (file) => (dirname(file) === '.' ? file : dirname(file));
  for (const [file, deps] of Object.entries(result.obj())) {
    const kept = deps.filter((dep) => !allowed(file, dep));
    files.set(file, kept);
    const from = folderOf(file);
    if (!folders.has(from)) folders.set(from, new Set());
    for (const dep of kept) if (folderOf(dep) !== from) folders.get(from).add(folderOf(dep));
  }
  return { files, folders };
}

async function main() {
  let failed = false;
  for (const pkg of PACKAGES) {
    const { files, folders } = await graphs(pkg);
    for (const cycle of cycles(files)) {
      failed = true;
      console.error(`import cycle in ${pkg}: ${cycle.join(' > ')}`);
    }
    for (const cycle of cycles(folders)) {
      failed = true;
      console.error(`folder cycle in ${pkg}: ${cycle.join(' <> ')}`);
    }
  }
  if (failed) process.exit(1);
  console.log(`no import cycles in ${PACKAGES.map((p) => relative(root, resolve(p))).join(', ')}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
