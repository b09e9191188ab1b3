import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const scripts = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8'))
  .scripts as Record<string, string>;

// npm runs a script through `sh -c` and forwards SIGTERM to that shell, which dies without passing it on: a
// process manager stopping `npm start` left the api and the worker running. `exec` hands the shell's
// process to node, so the signal reaches the process that shuts down gracefully.
describe('npm scripts that start a long-running process', () => {
  it.each(['start', 'start:api', 'start:worker'])('%s ends by exec-ing node', (name) => {
    const last = scripts[name].split('&&').pop()!.trim();
    expect(last).toMatch(/^exec node /);
  });
});
