import { ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppConfig, dropDatabase } from '@wharf/core';
import { eventually, http } from './support/http';
import { freePort } from './support/ports';
import { CLI, ROOT, Spawned, descendants, ensureBuilt, runNode, running } from './support/processes';
import { REDIS_URL, deleteQueueKeys, testConfig } from './support/test-app';

/** The README's tour: its ```sh tour blocks, in order, as a reader pastes them into one shell. */
function tourBlocks(readme: string): string[] {
  return [...readme.matchAll(/^```sh tour\n([\s\S]*?)^```$/gm)].map((match) => match[1]);
}

/**
 * The JSON objects printed in `text`, in order. The receiver runs in the background of the same shell, so
 * its lines may land right after a response body, before the newline the tour's `api` prints after it.
 */
function jsonObjects(text: string): any[] {
  const found: any[] = [];
  for (let start = text.indexOf('{"'); start >= 0; start = text.indexOf('{"', start + 1)) {
    let depth = 0;
    let inString = false;
    for (let i = start; i < text.length; i++) {
      const c = text[i];
      if (inString) {
        if (c === '\\') i++;
        else if (c === '"') inString = false;
      } else if (c === '"') inString = true;
      else if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') depth--;
      if (depth === 0) {
        found.push(JSON.parse(text.slice(start, i + 1)));
        start = i;
        break;
      }
    }
  }
  return found;
}

/**
 * A fresh api and worker as `npm start` runs them (the command after its build: `npm start` itself would
 * rebuild the dist/ other suites run), then the tour's commands verbatim in bash, with only the variables
 * the tour reads to run beside other instances (PORT, RECEIVER_PORT, and the database and queue prefix the
 * CLI reads).
 */
describe('the README tour, run verbatim against a fresh api', () => {
  const blocks = tourBlocks(readFileSync(join(ROOT, 'README.md'), 'utf8'));
  let config: AppConfig;
  let port: number;
  let receiverPort: number;
  let start: Spawned;
  let tour: ChildProcess | undefined;
  let tourOutput = '';
  let env: Record<string, string>;

  beforeAll(async () => {
    // Builds only when a source changed since the last build (a fresh clone), as `npm run cli` does.
    ensureBuilt();
    config = testConfig();
    port = await freePort();
    receiverPort = await freePort();
    env = {
      DATABASE_URL: config.databaseUrl,
      REDIS_URL,
      QUEUE_PREFIX: config.queuePrefix,
      PORT: String(port),
      NODE_ENV: 'development',
    };
    start = runNode(CLI, ['start'], env);
    await eventually(
      async () => (await http(`http://127.0.0.1:${port}`, 'GET', '/health')).status === 200,
      60_000,
    );
    // Logged through pino-pretty's thread, so possibly after the api already answers.
    await eventually(
      async () =>
        ['Wharf worker ready', 'Wharf api listening'].every((line) => start.output().includes(line)),
      30_000,
    );
  }, 300_000);

  afterAll(async () => {
    // The receiver the tour left running in the background of its shell, then the api and the worker.
    if (tour?.pid) {
      try {
        process.kill(-tour.pid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
    const started = start ? [start.child.pid!, ...descendants(start.child.pid!)] : [];
    start?.child.kill('SIGTERM');
    await eventually(async () => started.every((pid) => !running(pid)), 20_000).catch(() =>
      started.filter(running).forEach((pid) => process.kill(pid, 'SIGKILL')),
    );
    await dropDatabase(config.databaseUrl);
    await deleteQueueKeys(config);
  }, 60_000);

  it('npm start prints the demo key where it stays visible: nothing but a few status lines after it', () => {
    const lines = start.output().split('\n');
    const key = lines.findIndex((line) => /^\s+wharf_live_[0-9A-Za-z]{36}$/.test(line));
    expect(key).toBeGreaterThan(0);
    const after = lines.slice(key + 1).filter((line) => line.trim() !== '');
    expect(after.join('\n')).not.toMatch(/RouterExplorer|RoutesResolver|InstanceLoader|Mapped \{/);
    expect(after.length).toBeLessThanOrEqual(12);
    expect(after.join('\n')).toContain(`api listening on http://localhost:${port}`);
  });

  it('has its blocks: a key, an endpoint, a verifying receiver, a warehouse, reads', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(5);
    expect(blocks.join('\n')).toMatch(/companies:create/);
    expect(blocks.join('\n')).toMatch(/webhook-endpoints/);
    expect(blocks.join('\n')).toMatch(/hook\.verify\(/);
    expect(blocks.join('\n')).toMatch(/"sections": \[/);
  });

  it('every command succeeds, and the receiver verifies the signed delivery of the warehouse', async () => {
    // Its own process group, so the receiver it starts in the background is stopped with it.
    tour = spawn('bash', ['-c', `set -euo pipefail\n${blocks.join('\n')}`], {
      cwd: ROOT,
      detached: true,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        DATABASE_URL: env.DATABASE_URL,
        REDIS_URL: env.REDIS_URL,
        QUEUE_PREFIX: env.QUEUE_PREFIX,
        PORT: env.PORT,
        RECEIVER_PORT: String(receiverPort),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    tour.stdout!.on('data', (chunk: Buffer) => (tourOutput += chunk.toString()));
    tour.stderr!.on('data', (chunk: Buffer) => (tourOutput += chunk.toString()));
    // 'exit', not 'close': the receiver left in the background keeps the output open.
    const code = await new Promise<number | null>((resolve) => tour!.on('exit', (exit) => resolve(exit)));
    expect({ code, output: tourOutput }).toEqual({ code: 0, output: expect.any(String) });

    const responses = jsonObjects(tourOutput);
    const created = responses.find((body) => body.warehouse)?.warehouse;
    expect(created).toMatchObject({
      name: 'Rotterdam North',
      location: { name: 'Gate A', latitude: 51.9225, longitude: 4.4792 },
      sections: [{ name: 'Cold store' }, { name: 'Dry goods' }],
      docks: [
        { dock_number: 'D1', direction: 'inbound' },
        { dock_number: 'D2', direction: 'outbound' },
      ],
    });
    const lists = responses.filter((body) => body.warehouses);
    expect(lists.map((body) => body.warehouses.map((w: { uuid: string }) => w.uuid))).toEqual([
      [created.uuid],
      [created.uuid],
    ]);

    // Delivered, signed with the endpoint's secret: the receiver verified it (a first attempt that found
    // it not yet listening is retried after 5 s).
    await eventually(
      async () => tourOutput.includes(`verified warehouse.created ${created.uuid}`),
      60_000,
      200,
    );
    expect(tourOutput).not.toContain('rejected:');
    // Development logs no line for a request that went well: the demo key stays on screen.
    expect(start.output()).not.toMatch(/(GET|POST) \/(inventory\/)?int\/v1\//);
  }, 120_000);
});
