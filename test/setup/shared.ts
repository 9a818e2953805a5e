/** Environment variables through which the global setup tells test files where things run. */
export const TEST_ENV = {
  temporalAddress: 'PLATFORM_OPS_TEST_TEMPORAL_ADDRESS',
  temporalNamespace: 'PLATFORM_OPS_TEST_TEMPORAL_NAMESPACE',
  emulatorUrl: 'PLATFORM_OPS_TEST_EMULATOR_URL',
  workflowBundle: 'PLATFORM_OPS_TEST_WORKFLOW_BUNDLE',
  temporalCli: 'PLATFORM_OPS_TEST_TEMPORAL_CLI',
  temporalUiUrl: 'PLATFORM_OPS_TEST_TEMPORAL_UI_URL',
} as const;

export interface GlobalHandles {
  stopServer(): Promise<void>;
  stopEmulator(): Promise<void>;
}

export function testEnv(name: keyof typeof TEST_ENV): string {
  const value = process.env[TEST_ENV[name]];
  if (!value) throw new Error(`${TEST_ENV[name]} is not set: run the tests through jest (its global setup sets it)`);
  return value;
}
