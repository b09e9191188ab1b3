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

/**
 * What a user of the README and docs/ has no use for: how CI runs, work-item numbers, and the authors
 * arguing their choices. The file's own history is in git.
 */
const NOT_FOR_USERS: [string, RegExp][] = [
  ['CI internals', /\.ci\/|\bCI\b|smoke (subset|tests?)\b/],
  ['a work-item number', /\b(issue|item|ticket|task) #?\d+\b|(^|[\s(`-])i\d{2,3}\b/i],
  ['the authors speaking', /\b(we|our|us)\b/i],
  ['what the docs are tested with', /\bruns? (them|it) verbatim\b/i],
];

const unfit = (line: string) => NOT_FOR_USERS.find(([, pattern]) => pattern.test(line))?.[0];

/** Every line of README and docs/ with its place. */
const lines = () =>
  [...pages()].flatMap(([file, text]) =>
    text.split('\n').map((line, index) => ({ at: `${file}:${index + 1}`, line })),
  );

describe('README and docs/', () => {
  it('the README is at most 300 lines', () => {
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n').length).toBeLessThanOrEqual(300);
  });

  it('the check catches run narration', () => {
    for (const line of [
      "This session's run gave 1,200 req/s, on the same code as the last two sessions' final code",
      'against 900 in the last run and 800 in the one before, the slowest yet',
      'and the three runs two sessions ago, both on the same code',
      '(0.9 in the last run, 1.1 in the one before that)',
    ])
      expect({ line, narrating: narrating(line) }).toEqual({ line, narrating: true });
    for (const line of [
      'A delivery that finds the receiver not yet listening is retried 5 seconds later.',
      'Run any number of api and worker processes against the same PostgreSQL and Redis.',
    ])
      expect({ line, narrating: narrating(line) }).toEqual({ line, narrating: false });
  });

  it('no line narrates development runs relative to each other', () => {
    expect(lines().filter(({ line }) => narrating(line))).toEqual([]);
  });

  it('the check catches what is not for users', () => {
    for (const [line, kind] of [
      ['CI builds on Node 24 first (see `.ci/run`), then runs every suite.', 'CI internals'],
      ['The smoke subset covers the list routes.', 'CI internals'],
      ['Written for issue 12, whose limit this is.', 'a work-item number'],
      ['(`bench/results/api-i12-before.json`)', 'a work-item number'],
      ['We picked five-character grams because trigrams match too much.', 'the authors speaking'],
      ['(`test/tour.e2e-spec.ts` runs them verbatim.)', 'what the docs are tested with'],
      ['Supported on Node 20.19+, 22 and 24; i18n is not', undefined],
      ['The api sends `Retry-After: 5` in the usual error format.', undefined],
    ])
      expect({ line, unfit: unfit(line as string) }).toEqual({ line, unfit: kind });
  });

  it('no line of README or docs/ speaks of CI, work items, or the authors and their choices', () => {
    expect(lines().filter(({ line }) => unfit(line))).toEqual([]);
  });

  it('bench/results files are named by what they measure, not by work item or run', () => {
    const names = readdirSync(join(ROOT, 'bench', 'results'));
    expect(names.length).toBeGreaterThan(3);
    expect(
      names.filter((name) => /(^|-)i\d{2,3}(-|\.)|issue|session|run\d|before|after/i.test(name)),
    ).toEqual([]);
  });

  it('says where `events` is described that an endpoint created without it receives every data event', () => {
    const webhooks = readFileSync(join(ROOT, 'docs', 'webhooks.md'), 'utf8');
    expect(webhooks).toMatch(/created without `events` gets `\["\*"\]`, and so receives every data event/);
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
    const broken = [...pages()].flatMap(([file, text]) =>
      [...text.matchAll(/\]\((?!https?:|#|mailto:)([^)#\s]+)(#[^)]*)?\)/g)]
        .map((match) => relative(ROOT, resolve(dirname(join(ROOT, file)), match[1])))
        .filter((target) => !existsSync(join(ROOT, target)))
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
