import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { API_NODE_FLAGS } from './node-flags';

const ROOT = join(__dirname, '..', '..', '..', '..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

// The CLI's `start` and bench:api import API_NODE_FLAGS; these launchers cannot, so they repeat the flags.
describe('API_NODE_FLAGS', () => {
  const launchers: [string, () => string][] = [
    ['the Dockerfile CMD', () => /^CMD (.*)$/m.exec(read('Dockerfile'))![1]],
    [
      "docker-compose's api command",
      () => /\n {2}api:[\s\S]*?command:\s*(\[[^\]]*\])/.exec(read('docker-compose.yml'))![1],
    ],
    ['npm run start:api', () => JSON.parse(read('package.json')).scripts['start:api']],
  ];

  it.each(launchers)('%s starts the api with every flag', (_name, command) => {
    const line = command();
    expect(line).toContain('dist/apps/api/src/main.js');
    for (const flag of API_NODE_FLAGS) expect(line).toContain(flag);
  });
});
