// The `endpoint` commands as users run them, against the dev server and the emulator: deploy with no config flag,
// show, scale, list and remove, each waited out; a bad config refused before anything starts.
import { serverlessEndpointWorkflowId } from '@platform-ops/client';
import { ExitCode } from '../../src/cli/command';
import { emulatorAdmin } from '../helpers/emulator';
import type { EmulatedEndpoint } from '../helpers/endpoints';
import { cleanEnv, runNode } from '../helpers/processes';
import { uniqueId, withClient, withWorker } from '../helpers/temporal';
import { testEnv } from '../setup/shared';

const env = (taskQueue: string) =>
  cleanEnv({
    TEMPORAL_ADDRESS: testEnv('temporalAddress'),
    TEMPORAL_NAMESPACE: testEnv('temporalNamespace'),
    TEMPORAL_TASK_QUEUE: taskQueue,
  });
const starter = (args: string[], taskQueue: string, timeoutMs?: number) =>
  runNode('starter.js', ['endpoint', ...args], env(taskQueue), timeoutMs);

describe('endpoint commands', () => {
  it(
    'deploys on the emulator with no config flag, scales, shows, lists and removes it',
    () =>
      withWorker('endpoint-cli', async ({ taskQueue }) => {
        const name = uniqueId('cli-ep');
        const deployed = await starter(['deploy', name, '--wait'], taskQueue);
        expect(deployed.stderr).toBe('');
        expect(deployed.code).toBe(0);
        // Progress while it comes up: at least one status line before the outcome.
        expect(deployed.stdout).toMatch(/^ {2}(CHECKING|CREATING|WAITING_TO_SERVE|SERVING) · /m);
        expect(deployed.stdout).toMatch(new RegExp(`Endpoint ${name}: deploy done; 1 healthy, url https://`));

        const scaled = await starter(['scale', name, '--min-workers', '2', '--max-workers', '3', '--wait'], taskQueue);
        expect(scaled.code).toBe(0);
        expect(scaled.stdout).toContain(`Endpoint ${name}: scale done; 2 healthy`);

        const shown = await starter(['show', name], taskQueue);
        expect(shown.code).toBe(0);
        expect(shown.stdout).toContain(`Endpoint ${name}: SERVING (platform: serving)`);
        expect(shown.stdout).toMatch(/workers 2 running, 2 healthy of 2 \(min 2, max 3\)/);

        const listed = await starter(['list'], taskQueue);
        expect(listed.code).toBe(0);
        expect(listed.stdout).toMatch(new RegExp(`${name}\\s+SERVING\\s+2/2`));

        const removed = await starter(['remove', name, '--wait'], taskQueue);
        expect(removed.code).toBe(0);
        expect(removed.stdout).toContain(`Endpoint ${name}: remove done`);
        // The ended run still answers with how it ended; a name never deployed has no run.
        const gone = await starter(['show', name], taskQueue);
        expect(gone.stdout).toContain(`Endpoint ${name}: REMOVED`);
        const never = await starter(['show', `${name}-never`], taskQueue);
        expect(never.code).toBe(ExitCode.NotFound);
        expect(never.stderr).toContain(`No endpoint named ${name}-never is deployed here`);
      }),
    // Seven CLI processes and four changes, each polled every 5 s (the run's default): about 35 s alone.
    180_000,
  );

  it('refuses a bad config before anything starts, naming the field', () =>
    withWorker('endpoint-cli-bad', async ({ taskQueue }) => {
      const name = uniqueId('cli-ep-bad');
      const run = await starter(['deploy', name, '--min-workers', '3', '--max-workers', '2'], taskQueue);
      expect(run.code).toBe(ExitCode.Usage);
      expect(run.stderr).toMatch(/config\.workerConfig\.minNum: must be at most workerConfig\.maxNum \(2\)/);
      const started = await withClient((client) =>
        client.workflow
          .getHandle(serverlessEndpointWorkflowId(name))
          .describe()
          .then(
            () => true,
            () => false,
          ),
      );
      expect(started).toBe(false);
    }));

  it(
    'fails a new endpoint whose workers never turn healthy within --unhealthy-timeout, showing them billing until it is gone',
    () =>
      withWorker('endpoint-cli-sick', async ({ taskQueue }) => {
        const name = uniqueId('cli-ep-sick');
        const image = 'registry.example/hello-gpu:1 [emulator:never_healthy]';
        const began = Date.now();
        const deploying = starter(
          ['deploy', name, '--image', image, '--unhealthy-timeout', '30', '--wait'],
          taskQueue,
          150_000,
        );
        // While it comes up: the endpoint's id, and its workers running but not healthy.
        let shown = '';
        for (const end = Date.now() + 60_000; Date.now() < end; await new Promise((r) => setTimeout(r, 2_000))) {
          shown = (await starter(['show', name], taskQueue)).stdout;
          if (/workers [1-9]\d* running, 0 healthy/.test(shown)) break;
        }
        expect(shown).toContain(`Endpoint ${name}: WAITING_TO_SERVE (platform: initializing)`);
        expect(shown).toMatch(/ {2}id ep-\S+ {2}url/);
        expect(shown).toMatch(/workers [1-9]\d* running, 0 healthy of/);
        const listed = await starter(['list'], taskQueue);
        expect(listed.stdout).toMatch(new RegExp(`${name}\\s+WAITING_TO_SERVE`));

        const deployed = await deploying;
        expect(deployed.code).not.toBe(0);
        expect(deployed.stdout + deployed.stderr).toMatch(
          /failed: workers ran without turning healthy for 30s: the platform shows the endpoint initializing, [1-9]\d* running, 0 healthy; the endpoint was removed, so no worker bills/,
        );
        // The bound, one report's interval at most, and the delete.
        expect(Date.now() - began).toBeLessThan(100_000);
        const endpoints = () =>
          emulatorAdmin<{ endpoints: EmulatedEndpoint[] }>(testEnv('emulatorUrl'), 'GET', '/endpoints').then(
            ({ endpoints: all }) => all.filter((e) => e.name === name),
          );
        const [gone] = await endpoints();
        expect(gone.billedWorkerSeconds).toBeGreaterThan(0);
        expect(gone.billingNow).toBe(0);
        // 30 s later on the emulator's clock (ten times real time), nothing bills and nothing more was billed.
        await new Promise((r) => setTimeout(r, 3_500));
        const [later] = await endpoints();
        expect(later).toMatchObject({ billingNow: 0, billedWorkerSeconds: gone.billedWorkerSeconds });
        const after = await starter(['show', name], taskQueue);
        expect(after.stdout).toContain(`Endpoint ${name}: FAILED`);
        expect(after.stdout).toContain('  id -  url -');
      }),
    180_000,
  );
});
