import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'coverage/**', '**/*.js', '**/*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  prettier,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/unbound-method': 'off',
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+(libs|apps|extensions)/[^/]+/src(/|$)',
              message:
                'Import other packages through their path alias (@wharf/core, @wharf/webhooks, @wharf/<extension>).',
            },
          ],
        },
      ],
    },
  },
  {
    // Short files and functions in the webhooks library and the CLI (migrations and specs aside); one
    // table or statement may be exempt with an eslint-disable-next-line comment giving the reason.
    files: ['libs/webhooks/src/**/*.ts', 'apps/cli/src/**/*.ts'],
    // scaffold.command.ts is not held to it yet: its `files` template is over the limit.
    ignores: ['**/migrations/**', '**/*.spec.ts', 'apps/cli/src/scaffold.command.ts'],
    rules: { 'max-lines': ['error', 250], 'max-lines-per-function': ['error', 60] },
  },
);
