import { execFile } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './support/processes';

const run = promisify(execFile);

/** README and every page under docs/, by path from the repository root. */
function pages(): Map<string, string> {
  const files = ['README.md', ...readdirSync(join(ROOT, 'docs')).map((name) => `docs/${name}`)];
  return new Map(
    files
      .filter((file) => file.endsWith('.md'))
      .map((file) => [file, readFileSync(join(ROOT, file), 'utf8')]),
  );
}

/**
 * Narration of development runs told relative to each other: history, which belongs in git and
 * bench/results, and which the reader cannot place.
 */
const RELATIVE_RUNS = [
  /\b(last|previous|prior|this|that|next) (session|run|wave)('s|s)?\b/i,
  /\bthe one before\b/i,
  /\bbefore (that|those|it)\b.*\b(run|session|ran|gave|did)\b/i,
  /\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\d+|several|a few) (sessions?|runs?|waves?) (ago|before|earlier)\b/i,
  /\bsessions? ago\b/i,
  /\bearlier (runs?|sessions?)\b/i,
  /\bin (the|an) earlier (run|session)\b/i,
];

const narrating = (line: string) => RELATIVE_RUNS.some((pattern) => pattern.test(line));

describe('README and docs/', () => {
  it('the README is at most 300 lines', () => {
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n').length).toBeLessThanOrEqual(300);
  });

  it('the check catches run narration (lines of the README before docs/ existed)', () => {
    for (const line of [
      "This session's run (in `scale.json`, on the same list and search code as the last two sessions' final code",
      "against 4,436 in the last session's run and 1,736 in the one before, the slowest yet",
      "Two sessions ago's three runs (the second and third on that session's final code",
      'and 16a–16c two sessions ago, both on the same code as 14b–14e',
      '(0.96 in the last run, 1.12 in the one before that)',
    ])
      expect({ line, narrating: narrating(line) }).toEqual({ line, narrating: true });
    for (const line of [
      'A delivery that finds the receiver not yet listening is retried 5 seconds later.',
      'Run any number of api and worker processes against the same PostgreSQL and Redis.',
      'CI runs the build and a smoke subset on Node 24, then `npm test`.',
    ])
      expect({ line, narrating: narrating(line) }).toEqual({ line, narrating: false });
  });

  it('no line narrates development runs relative to each other', () => {
    const found = [...pages()].flatMap(([file, text]) =>
      text
        .split('\n')
        .map((line, index) => ({ at: `${file}:${index + 1}`, line }))
        .filter(({ line }) => narrating(line)),
    );
    expect(found).toEqual([]);
  });

  it('the configuration table names every variable of .env.example and of the configuration loader', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const section = readme.slice(
      readme.indexOf('## Configuration'),
      readme.indexOf('\n## ', readme.indexOf('## Configuration') + 1),
    );
    const documented = new Set([...section.matchAll(/^\| `([A-Z_]+)`/gm)].map((match) => match[1]));
    const example = [...readFileSync(join(ROOT, '.env.example'), 'utf8').matchAll(/^([A-Z_]+)=/gm)].map(
      (m) => m[1],
    );
    // The kernel's loader and the sections libraries contribute to it.
    const loader = ['libs/core/src/config/config.ts', 'libs/webhooks/src/webhooks.config.ts']
      .flatMap((file) => [
        ...readFileSync(join(ROOT, file), 'utf8').matchAll(/\benv(?:\.|, ')([A-Z][A-Z_]+)/g),
      ])
      .map((match) => match[1]);
    expect(example.length).toBeGreaterThan(20);
    expect(loader.length).toBeGreaterThan(20);
    expect([...new Set([...example, ...loader])].filter((name) => !documented.has(name))).toEqual([]);
  });

  it('links between the pages lead to files of the repository', () => {
    // Written on other branches of the same change.
    const elsewhere = new Set(['docs/openapi.md', 'docs/delivery.md']);
    const broken = [...pages()].flatMap(([file, text]) =>
      [...text.matchAll(/\]\((?!https?:|#|mailto:)([^)#\s]+)(#[^)]*)?\)/g)]
        .map((match) => relative(ROOT, resolve(dirname(join(ROOT, file)), match[1])))
        .filter((target) => !existsSync(join(ROOT, target)) && !elsewhere.has(target))
        .map((target) => `${file} → ${target}`),
    );
    expect(broken).toEqual([]);
  });

  it('docs/performance.md shows the figures of bench/results (node scripts/performance-doc.js)', async () => {
    await expect(
      run(process.execPath, [join(ROOT, 'scripts', 'performance-doc.js'), '--check']),
    ).resolves.toBeDefined();
  });
});
