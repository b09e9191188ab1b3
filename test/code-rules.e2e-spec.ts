import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './support/processes';

/**
 * The code rules `npm run lint` applies to every package (eslint.code-rules.mjs, part of eslint.config.mjs),
 * tried on planted text: ESLint's own command lints it as the named file would be.
 */
const ESLINT = join(ROOT, 'node_modules', 'eslint', 'bin', 'eslint.js');

function problems(filePath: string, text: string): Promise<string[]> {
  const child = spawn(
    process.execPath,
    [
      ESLINT,
      '--config',
      'eslint.code-rules.mjs',
      '--format',
      'json',
      '--stdin',
      '--stdin-filename',
      filePath,
    ],
    {
      cwd: ROOT,
    },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stdin.end(text);
  return new Promise((resolve, reject) =>
    child.on('close', () => {
      try {
        const [result] = JSON.parse(output) as { messages: { ruleId: string; message: string }[] }[];
        resolve(result.messages.map((message) => `${message.ruleId}: ${message.message}`));
      } catch (error) {
        reject(new Error(`eslint printed no report: ${output}`, { cause: error }));
      }
    }),
  );
}

const lines = (count: number, line: (i: number) => string) =>
  Array.from({ length: count }, (_, i) => line(i)).join('\n');
const fn = (bodyLines: number) =>
  `export function f(): number {\n  let x = 0;\n${lines(bodyLines, (i) => `  x += ${i};`)}\n  return x;\n}\n`;

const KERNEL = 'libs/core/src/config/duration.ts';
const EXTENSION = 'extensions/fleet/src/index.ts';
const WEBHOOKS = 'libs/webhooks/src/index.ts';
const MIGRATION = 'libs/core/src/migrations/1700000000007-create-idempotency-keys.ts';

describe('npm run lint: code rules of every package', () => {
  it('refuses a function over 60 lines, in the kernel and in an extension alike', async () => {
    for (const file of [KERNEL, EXTENSION, WEBHOOKS]) {
      expect(await problems(file, fn(56))).toEqual([]);
      expect(await problems(file, fn(57))).toEqual([
        "max-lines-per-function: Function 'f' has too many lines (61). Maximum allowed is 60.",
      ]);
    }
  });

  it('refuses a file over 250 lines', async () => {
    const file = (count: number) => lines(count, (i) => `export const c${i} = ${i};`) + '\n';
    expect(await problems(KERNEL, file(250))).toEqual([]);
    expect(await problems(EXTENSION, file(251))).toEqual([
      'max-lines: File has too many lines (251). Maximum allowed is 250.',
    ]);
  });

  it('leaves migrations to their length: one migration is one change of the schema', async () => {
    expect(await problems(MIGRATION, fn(80))).toEqual([]);
  });

  it('refuses a comment that quotes a measurement, but not a duration syntax it documents', async () => {
    const quoting = '// Batching saved 35 µs per request (median of 5 runs).\nexport const batch = 1;\n';
    for (const file of [KERNEL, EXTENSION, MIGRATION])
      expect(await problems(file, quoting)).toEqual([
        'wharf/no-measurement-comments: A comment quotes a measurement: "Batching saved 35 µs per request (median of 5 runs).".',
      ]);
    expect(await problems(KERNEL, '/** Parses `250ms`, `5s` or `1d`. */\nexport const parse = 1;\n')).toEqual(
      [],
    );
  });

  it('are part of npm run lint: its ESLint configuration applies them, and it runs the cycle check', async () => {
    const child = spawn(process.execPath, [ESLINT, '--print-config', KERNEL], { cwd: ROOT });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await new Promise((resolve) => child.on('close', resolve));
    const { rules } = JSON.parse(output) as { rules: Record<string, unknown[]> };
    expect(rules['max-lines']).toEqual([2, { max: 250 }]);
    expect(rules['max-lines-per-function']).toEqual([2, { max: 60 }]);
    expect(rules['wharf/no-measurement-comments']).toEqual([2]);
    const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(scripts.lint.split(' && ')).toEqual(
      expect.arrayContaining(['eslint .', 'node scripts/check-cycles.js']),
    );
  });
});
