// `npm run test:cluster`: the production topology's fault suite (test/cluster/*.cluster.ts). Kept
// out of `npm test` (whose testMatch is *.test.ts): it builds and starts a whole cluster, and runs
// for a few minutes. It starts its own stack, so the dev server's global setup is not used.
const base = require('./jest.config');

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: base.testEnvironment,
  transform: base.transform,
  transformIgnorePatterns: base.transformIgnorePatterns,
  moduleNameMapper: base.moduleNameMapper,
  roots: ['<rootDir>/test/cluster'],
  testMatch: ['**/*.cluster.ts'],
  testTimeout: 10 * 60_000,
  maxWorkers: 1,
};
