/** Unit specs live beside the code; e2e suites live in test/ and run against real PostgreSQL and Redis. */
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
      target: 'es2022',
      keepClassNames: true,
    },
    module: { type: 'commonjs' },
  },
];
// ESM-only dependencies jest (CommonJS) cannot require: compiled to CommonJS like our own sources.
const esmOnly = ['content-disposition', '@apidevtools/json-schema-ref-parser'];
const shared = {
  transform: { '^.+\\.ts$': swc, [`/node_modules/(${esmOnly.join('|')})/.+\\.js$`]: swc },
  transformIgnorePatterns: [`/node_modules/(?!(${esmOnly.join('|')})/)`],
  moduleFileExtensions: ['ts', 'js', 'json'],
  moduleNameMapper: {
    '^@wharf/api$': '<rootDir>/apps/api/src/api',
    '^@wharf/worker$': '<rootDir>/apps/worker/src/worker',
    '^@wharf/client$': '<rootDir>/clients/typescript/src',
    '^@wharf/(core|webhooks|accounts|locations)$': '<rootDir>/libs/$1/src',
    '^@wharf/(core|webhooks|accounts|locations)/(.*)$': '<rootDir>/libs/$1/src/$2',
    '^@wharf/([a-z0-9-]+)$': '<rootDir>/extensions/$1/src',
    '^@wharf/([a-z0-9-]+)/(.*)$': '<rootDir>/extensions/$1/src/$2',
  },
  testEnvironment: 'node',
};
module.exports = {
  testTimeout: 60000,
  projects: [
    {
      ...shared,
      displayName: 'unit',
      roots: ['<rootDir>/apps', '<rootDir>/libs', '<rootDir>/extensions'],
      testMatch: ['**/*.spec.ts'],
    },
    {
      ...shared,
      displayName: 'e2e',
      roots: ['<rootDir>/test'],
      testMatch: ['**/*.e2e-spec.ts'],
      // scaffolds and other outputs of tests live there, never suites of this repository
      testPathIgnorePatterns: ['/node_modules/', '/test/artifacts/'],
    },
  ],
};
