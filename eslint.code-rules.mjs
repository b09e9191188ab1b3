// Wharf's own code rules for every package, part of eslint.config.mjs. They need no type information, so
// test/code-rules.e2e-spec.ts runs ESLint with this file alone on planted text.
import tseslint from 'typescript-eslint';

// A comment says why; a measurement (a run's µs, ms, req/s, medians, percentages) belongs in the commit
// message and bench/results, where it is dated, not in code that outlives it.
const MEASUREMENT = /\d\s?(µs|us\b|ms\b|req\/s)|\bmedian\b|of the floor|(?<![±\d.])\d+(\.\d+)?\s?%/i;
const DURATION_SYNTAX = /`\d+(ms|s|m|h|d)`/g;

const wharf = {
  rules: {
    'no-measurement-comments': {
      meta: { type: 'suggestion', messages: { quotes: 'A comment quotes a measurement: "{{line}}".' } },
      create(context) {
        return {
          Program() {
            for (const comment of context.sourceCode.getAllComments()) {
              const line = comment.value
                .split('\n')
                .find((text) => MEASUREMENT.test(text.replace(DURATION_SYNTAX, '')));
              if (line)
                context.report({ loc: comment.loc, messageId: 'quotes', data: { line: line.trim() } });
            }
          },
        };
      },
    },
  },
};

export default [
  {
    files: ['libs/**/*.ts', 'apps/**/*.ts', 'apps/**/*.tsx', 'extensions/**/*.ts'],
    ignores: ['**/*.spec.ts'],
    languageOptions: { parser: tseslint.parser },
    plugins: { wharf },
    rules: { 'wharf/no-measurement-comments': 'error' },
  },
  {
    // A file a reader can hold in mind, a function a screen: split by meaning past these. One table or one
    // statement may be longer, with an eslint-disable-next-line comment that says so.
    files: ['libs/**/*.ts', 'apps/**/*.ts', 'extensions/**/*.ts'],
    ignores: ['apps/console/**', '**/migrations/**', '**/*.spec.ts'],
    rules: {
      'max-lines': ['error', { max: 250 }],
      'max-lines-per-function': ['error', { max: 60 }],
    },
  },
];
