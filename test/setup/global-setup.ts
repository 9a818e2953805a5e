// One Temporal dev server, one emulator and one workflow bundle for the whole test run. Test files
// find them through environment variables (workers inherit the env of the process that runs this), the payload
// key too.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { FAILURE_CONVERTER_PATH, loadKeyring, newKey, SEARCH_ATTRIBUTE_DEFINITIONS } from '@platform-ops/client';
import { findOrBuildClusterBinaries, findOrBuildTemporalCli } from '../../src/devserver/temporal-programs';
import { startDevServer } from '../../src/devserver/dev-server';
import { loadCodecServerSettings, startCodecServer } from '../../src/codec/server';
import { getFreePort } from '../../src/devserver/processes';
import { defaultFixtures, DEV_API_KEY, startEmulator } from '@platform-ops/emulator';
import { WORKFLOW_BUNDLER_OPTIONS } from '../../src/worker';
import { TEST_ENV, type GlobalHandles } from './shared';

const log = (msg: string) => process.stderr.write(`[test setup] ${msg}\n`);

export default async function globalSetup(): Promise<void> {
  const started = Date.now();
  // The CLI is the operator's client in the tests (runbook, resets, JSON input); the server is the cluster's build.
  // Every payload of the run encrypted, as by default (src/codec): a key of the run's own, which the tests' clients,
  // workers, child processes and the codec server all inherit.
  // A run that records histories for the replay tests writes them in the clear: a replay, then, needs no key.
  process.env.PAYLOAD_ENCRYPTION = process.env.RECORD_HISTORIES === '1' ? 'off' : 'on';
  process.env.PAYLOAD_KEYS = `test-${randomUUID().slice(0, 8)}:${newKey()}`;
  const cliPath = await findOrBuildTemporalCli({ log });
  const binaries = await findOrBuildClusterBinaries(log);
  const [server, emulator, bundle] = await Promise.all([
    // With its Web UI, for the test that looks at a run as an operator does (test/ui/), and the codec server the
    // UI decrypts the run's payloads with, as `npm start` has it.
    Promise.all([getFreePort(), getFreePort()]).then(async ([port, uiPort]) => {
      const codec = await startCodecServer({
        ...loadCodecServerSettings({ CODEC_PORT: '0', CODEC_CORS_ORIGINS: `http://127.0.0.1:${uiPort}` }),
        // With encryption off, it holds the run's key all the same: the UI shows payloads in the clear as they are.
        keyring: loadKeyring({ PAYLOAD_KEYS: process.env.PAYLOAD_KEYS })!,
      });
      const dev = await startDevServer({
        binaries,
        port,
        uiPort,
        searchAttributes: SEARCH_ATTRIBUTE_DEFINITIONS,
        log: () => {},
        codecEndpoint: codec.url,
      });
      return { ...dev, stop: () => dev.stop().finally(() => codec.close()) };
    }),
    // Sped up: restarts and media tasks finish in test time; tests that need another pace start their own.
    startEmulator({ port: 0, host: '127.0.0.1', clockSpeed: 10, fixtures: { instances: testInstances() } }),
    // Bundled as the worker bundles it.
    bundleWorkflowCode({
      workflowsPath: path.join(__dirname, '..', '..', 'src', 'operations', 'workflows.ts'),
      logger: quietLogger,
      ...WORKFLOW_BUNDLER_OPTIONS,
      // Failures' messages into their encoded attributes, as the worker's own bundle has it (src/codec).
      failureConverterPath: FAILURE_CONVERTER_PATH,
    }),
  ]);
  const dir = mkdtempSync(path.join(tmpdir(), 'platform-ops-test-'));
  const bundlePath = path.join(dir, 'workflow-bundle.js');
  writeFileSync(bundlePath, bundle.code);

  process.env[TEST_ENV.temporalAddress] = server.address;
  process.env[TEST_ENV.temporalNamespace] = server.namespace;
  process.env[TEST_ENV.emulatorUrl] = emulator.url;
  process.env[TEST_ENV.workflowBundle] = bundlePath;
  process.env[TEST_ENV.temporalCli] = cliPath;
  process.env[TEST_ENV.temporalUiUrl] = server.uiUrl!;
  const handles: GlobalHandles = { stopServer: () => server.stop(), stopEmulator: () => emulator.close() };
  (globalThis as { __platformOps?: GlobalHandles }).__platformOps = handles;
  log(`Temporal ${server.address}, emulator ${emulator.url}, ready in ${Date.now() - started} ms`);
}

/** The built-in instances, plus a few that only the CLI tests touch (tests in parallel must not share one). */
function testInstances() {
  const builtIn = defaultFixtures([DEV_API_KEY]).instances;
  const template = builtIn.find((i) => i.id === 'inst-demo-1')!;
  return [
    ...builtIn,
    ...['inst-cli-1', 'inst-cli-2', 'inst-cli-3', 'inst-cli-4'].map((id) => ({ ...template, id, name: id })),
  ];
}

const quietLogger = {
  log: () => {},
  trace: () => {},
  debug: () => {},
  info: () => {},
  warn: (message: string) => log(`bundler: ${message}`),
  error: (message: string) => log(`bundler: ${message}`),
};
