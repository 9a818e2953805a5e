// `npm test -w @platform-ops/emulator`: the emulator's suites alone. Each starts emulators of its own,
// so no Temporal server is set up. The root's `npm test` runs them too, among the service's suites.
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/../../tsconfig.test.json' }] },
  moduleNameMapper: { '^@platform-ops/client$': '<rootDir>/../client/src/index.ts' },
  testTimeout: 60_000,
  maxWorkers: 2,
};
