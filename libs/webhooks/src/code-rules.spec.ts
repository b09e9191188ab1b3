import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

/** The webhooks library's own rules about its code, which review alone would not keep. */
const ROOT = __dirname;

function sources(dir = ROOT): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [relative(ROOT, path)] : [];
  });
}

const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const code = sources().filter((file) => !file.endsWith('.spec.ts'));
/** The comments of a source: line comments and block comments. */
const comments = (text: string) => [...text.matchAll(/\/\/[^\n]*|\/\*[\s\S]*?\*\//g)].map((m) => m[0]);

describe('libs/webhooks/src', () => {
  it('keeps every SQL statement over webhook_deliveries in store/ (migrations aside)', () => {
    const touching = /\b(FROM|INTO|UPDATE|JOIN)\s+"?webhook_deliveries\b/i;
    const outside = code.filter(
      (file) => !file.startsWith('store/') && !file.startsWith('migrations/') && touching.test(read(file)),
    );
    expect(outside).toEqual([]);
  });

  it('has no file over 200 lines', () => {
    const long = sources()
      .map((file) => ({ file, lines: read(file).split('\n').length - 1 }))
      .filter(({ lines }) => lines > 200);
    expect(long).toEqual([]);
  });

  it('has no comment that quotes a measurement (those belong in commit messages and bench/results)', () => {
    const measurement = /\d\s?(µs|us\b|ms\b|req\/s)|\bmedian\b|of the floor|(?<![±\d.])\d+(\.\d+)?\s?%/i;
    const quoting = code.flatMap((file) =>
      comments(read(file))
        .filter((comment) => measurement.test(comment))
        .map(
          (comment) =>
            `${file}: ${comment
              .split('\n')
              .find((line) => measurement.test(line))
              ?.trim()}`,
        ),
    );
    expect(quoting).toEqual([]);
  });
});
