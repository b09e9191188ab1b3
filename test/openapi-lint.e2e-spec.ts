import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { http } from './support/http';
import { ROOT, runNode } from './support/processes';
import { startApi } from './support/test-app';

const LINT = join(ROOT, 'scripts', 'lint-openapi.js');

/** `npm run lint:openapi` (Redocly recommended + Spectral spectral:oas, see redocly.yaml, .spectral.yaml). */
describe('lint:openapi on the served document', () => {
  let dir: string;
  let document: any;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wharf-openapi-lint-'));
    const api = await startApi();
    try {
      document = (await http(api.url, 'GET', '/docs-json')).body;
    } finally {
      await api.close();
    }
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  async function lint(doc: unknown) {
    const file = join(dir, `${Math.random().toString(36).slice(2)}.json`);
    await writeFile(file, JSON.stringify(doc, null, 2));
    const run = runNode(LINT, ['--document', file], {});
    return { code: (await run.exited).code, output: run.output() };
  }

  it('passes both linters on the document the api serves', async () => {
    const { code, output } = await lint(document);
    expect({ code, output }).toEqual({
      code: 0,
      output: expect.stringContaining('Your API description is valid'),
    });
  });

  it('fails when a schema gets a `nullable` (without a type, or at all: 3.1 has none)', async () => {
    const broken = structuredClone(document);
    broken.components.schemas.Order.properties.notes = { nullable: true, description: 'Free text.' };
    const { code, output } = await lint(broken);
    expect(code).not.toBe(0);
    // Each linter refuses it on its own.
    expect(output).toMatch(/error\s+struct\s+Property `nullable` is not expected here/);
    expect(output).toMatch(/error\s+wharf-no-nullable/);
  });
});
