// The emulator as a library, for other projects' test suites: `import { startEmulator } from
// '@platform-ops/emulator'` (its package.json `exports`). Everything a user needs to start one on a free
// port, seed fixtures, set faults, play a scenario, read counters and stop it; docs/emulator.md.
export { startEmulator, type EmulatorOptions, type RunningEmulator } from './server';
export { runEmulatorProcess } from './cli';
export { HEALTH_PATH } from './routes';
export { EmulatorAdmin, EmulatorAdminError, type ClockView } from './admin-client';
export { DEV_API_KEY, EmulatorConfigError, loadEmulatorConfig, maskKey, type EmulatorFlags } from './config';
export type { CountersView } from './counters';
export type { EndpointAdminView } from './serverless-endpoints';
export type { FaultConfig } from './faults';
export type { EndpointSettings, EndpointSettingsUpdate, FixturesInput } from './fixtures';
export { defaultFixtures } from './fixtures-defaults';
export { videoCharge } from './pricing';
export type { RecordedExchange } from './record';
export { ScenarioSchema, type Scenario, type ScenarioInput } from './scenario/schema';
