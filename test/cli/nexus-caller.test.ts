// `npm run nexus-caller` as docs/backends.md#temporal-applications-nexus gives it: the caller workflow in the callers' namespace runs a
// generation through an endpoint to the test worker's queue and prints its result; a failed one exits non-zero.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { idempotentWorkflowId } from '@platform-ops/client';
import { ExitCode } from '../../src/cli/command';
import { setUpNexus } from '../../src/nexus/setup';
import { cleanEnv } from '../helpers/processes';
import { uniqueId, withWorker } from '../helpers/temporal';
import { testEnv } from '../setup/shared';

const ROOT = path.resolve(__dirname, '..', '..');

function nexusCaller(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env = cleanEnv({ TEMPORAL_ADDRESS: testEnv('temporalAddress') });
  // A group of its own: npm runs the program in a shell, and a stuck one is killed with all three.
  const child = spawn('npm', ['run', '--silent', 'nexus-caller', '--', ...args], { cwd: ROOT, env, detached: true });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 60_000);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('npm run nexus-caller', () => {
  it(
    'runs a generation through the endpoint, prints its result, and exits non-zero on a failure',
    () =>
      withWorker('nexus-cli', async (ctx) => {
        const endpoint = `nexus-cli-${randomUUID().slice(0, 8)}`;
        await setUpNexus({ ...ctx, endpoint, log: () => undefined });
        try {
          const key = uniqueId('order');
          const prompt = 'a heron at dawn [emulator:duration=1000]';
          const generate = (text: string, ...more: string[]) =>
            nexusCaller([
              'mediaGeneration',
              '--prompt',
              text,
              '--duration',
              '5',
              '--operation',
              'text-to-video',
              ...more,
            ]);
          const ok = await generate(prompt, '--nexus-endpoint', endpoint, '--idempotency-key', key);
          expect(ok.code).toBe(0);
          expect(JSON.parse(ok.stdout)).toMatchObject({ operation: 'text-to-video', outputs: [expect.anything()] });
          expect(ok.stderr).toMatch(/Calling mediaGeneration through nexus-cli-\w+ from callers\/nexusCaller-/);
          const ours = await ctx.client.workflow.getHandle(idempotentWorkflowId('mediaGeneration', key)).describe();
          expect(ours.status.name).toBe('COMPLETED');

          const refused = 'a storm [emulator:fail=ILLEGAL_PROMPT] [emulator:duration=500]';
          const failed = await generate(refused, '--nexus-endpoint', endpoint);
          expect(failed.code).toBe(ExitCode.WorkflowFailed);
          expect(failed.stdout).toBe('');
          expect(failed.stderr).toMatch(/failed: .*ILLEGAL_PROMPT/);

          const nowhere = await nexusCaller([
            'mediaGeneration',
            '--prompt',
            prompt,
            '--nexus-endpoint',
            'nowhere-here',
          ]);
          expect(nowhere.code).toBe(ExitCode.NotFound);
          expect(nowhere.stderr).toMatch(/has no Nexus endpoint named nowhere-here/);
        } finally {
          const { endpoints } = await ctx.client.connection.operatorService.listNexusEndpoints({ name: endpoint });
          for (const e of endpoints ?? []) {
            await ctx.client.connection.operatorService.deleteNexusEndpoint({ id: e.id, version: e.version });
          }
        }
      }),
    // Each caller bundles its workflow (a few seconds) before it runs.
    180_000,
  );
});
