#!/usr/bin/env node
// Fails on an import cycle inside a package: between files, or between the folders of libs/webhooks/src
// (a folder is a layer: controllers over services over the store, stages over the store and transport).
const { join, relative, dirname, resolve } = require('node:path');
const madge = require('madge');

const root = join(__dirname, '..');
// Checked: the packages named on the command line (tests point it at a fixture), else libs/webhooks/src.
const PACKAGES = process.argv.length > 2 ? process.argv.slice(2) : ['libs/webhooks/src'];

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

async function main() {
  let failed = false;
  // Every package checked is layered: its folders must not depend on each other in a cycle either.
  for (const pkg of PACKAGES) {
    // No tsconfig: path aliases (other packages) are left out, relative imports are this package's own.
    const result = await madge(resolve(pkg), { fileExtensions: ['ts'], excludeRegExp: [/\.spec\.ts$/] });
    for (const cycle of result.circular()) {
      failed = true;
      console.error(`import cycle in ${pkg}: ${cycle.join(' > ')}`);
    }
    const folders = new Map();
    // A file at the package's root (an entry point, or tuning.ts) is a node of its own.
    const folderOf = (file) => (dirname(file) === '.' ? file : dirname(file));
    for (const [file, deps] of Object.entries(result.obj())) {
      const from = folderOf(file);
      if (!folders.has(from)) folders.set(from, new Set());
      for (const dep of deps) if (folderOf(dep) !== from) folders.get(from).add(folderOf(dep));
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
