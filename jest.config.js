/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test', '<rootDir>/packages'],
  testMatch: ['**/*.test.ts'],
  transform: {
    // ky and jose are ESM-only: let ts-jest transpile them to CommonJS along with our TypeScript.
    '^.+\\.[tj]s$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }],
  },
  transformIgnorePatterns: ['/node_modules/(?!ky/|jose/)'],
  // The packages from their sources, as the typecheck sees them (tsconfig.json "paths"); a workflow bundle still
  // resolves them as installed, from their builds.
  moduleNameMapper: {
    '^@platform-ops/client$': '<rootDir>/packages/client/src/index.ts',
    '^@platform-ops/emulator$': '<rootDir>/packages/emulator/src/index.ts',
  },
  globalSetup: '<rootDir>/test/setup/global-setup.ts',
  globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
  testTimeout: 60_000,
  // Two cores: integration suites share one emulator and one Temporal server.
  maxWorkers: 2,
};
