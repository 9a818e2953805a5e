// The emulator as a library, for other projects' test suites: `import { startEmulator } from
// '@platform-ops/emulator'` (its package.json `exports`). Everything a user needs to start one on a free
// port, seed fixtures, set faults, play a scenario, read counters and stop it; docs/emulator.md.
export { startEmulator, type EmulatorOptions, type RunningEmulator } from './server';
export { EmulatorAdmin, EmulatorAdminError, type ClockView } from './admin-client';
export { DEV_API_KEY, EmulatorConfigError, loadEmulatorConfig, maskKey } from './config';
export type { CountersView } from './counters';
export type { FaultConfig } from './faults';
export type { FixturesInput } from './fixtures';
export { ScenarioSchema, type Scenario, type ScenarioInput } from './scenario/schema';
