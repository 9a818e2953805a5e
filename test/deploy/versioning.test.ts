// Worker Versioning (docs/versioning.md): the real worker process polls as a version of the Worker
// Deployment `platform-ops` and makes it current; each workflow type runs PINNED or AUTO_UPGRADE as
// declared beside it; test workers (withWorker) stay unversioned.
import { randomUUID } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { getFreePort } from '../../src/devserver/processes';
import { DEPLOYMENT_NAME } from '../../src/worker-deployment';
import { WORKFLOW_TYPES, WorkflowType } from '@platform-ops/client';
import { runStarter, startNode, waitFor, workerProcessEnv } from '../helpers/processes';
import { versioningBehaviours } from '../helpers/versioning';
import { withClient, withWorker } from '../helpers/temporal';
import { testEnv } from '../setup/shared';

const Behavior = temporal.api.enums.v1.VersioningBehavior;
const DECISION_INPUT = { state: 'text', questions: [{ kind: 'yes_no' as const, question: 'ok?' }] };

/** The behaviour and build a run describes with, once its first workflow task has completed. */
async function versioningOf(handle: WorkflowHandle): Promise<{ behavior: string; buildId?: string | null }> {
  let info: temporal.api.workflow.v1.IWorkflowExecutionVersioningInfo | null | undefined;
  await waitFor(
    async () => {
      info = (await handle.describe()).raw.workflowExecutionInfo?.versioningInfo;
      return !!info?.behavior;
    },
    30_000,
    `${handle.workflowId} to record its versioning behaviour`,
  );
  return {
    behavior: Behavior[info!.behavior!].replace('VERSIONING_BEHAVIOR_', ''),
    buildId: info!.deploymentVersion?.buildId,
  };
}

function startWorkerProcess(taskQueue: string, metricsPort: number): { child: ChildProcess; output: () => string } {
  return startNode('worker.js', workerProcessEnv(taskQueue, metricsPort));
}

describe('Worker Versioning', () => {
  it('declares a behaviour for every workflow type: AUTO_UPGRADE for the long-lived ones only', () => {
    const behaviours = versioningBehaviours();
    expect(Object.keys(behaviours).sort()).toEqual([...WORKFLOW_TYPES].sort());
    const autoUpgrade = Object.keys(behaviours).filter((t) => behaviours[t] === 'AUTO_UPGRADE');
    expect(autoUpgrade.sort()).toEqual(['autoRenew', 'batchJob', 'budgetLedger', 'serverlessEndpoint']);
    expect(Object.values(behaviours).filter((b) => b !== 'AUTO_UPGRADE' && b !== 'PINNED')).toEqual([]);
  });

  it('runs the worker process as the current version: short runs PINNED on it, the ledger AUTO_UPGRADE', async () => {
    const queues = [`versioning-a-${randomUUID().slice(0, 8)}`, `versioning-b-${randomUUID().slice(0, 8)}`];
    // Two workers of one build on two task queues, as every worker process of a test run is: the
    // second joins the version the first made current, and its queue is routed too.
    const workers = [startWorkerProcess(queues[0], await getFreePort())];
    try {
      await waitFor(() => workers[0].output().includes('Worker started'), 60_000, 'the first worker to start');
      workers.push(startWorkerProcess(queues[1], await getFreePort()));
      await waitFor(() => workers[1].output().includes('Worker started'), 60_000, 'the second worker to start');
      const started = workers.map(
        (w) =>
          JSON.parse(
            w
              .output()
              .split('\n')
              .find((l) => l.includes('Worker started'))!,
          ) as { deployment: string },
      );
      const buildId = /^platform-ops:(.+) \(current\)$/.exec(started[0].deployment)?.[1];
      expect(buildId).toMatch(/^\d+\.\d+\.\d+/);
      expect(started[1].deployment).toBe(started[0].deployment);

      await withClient(async (client: Client) => {
        const { workerDeploymentInfo } = await client.workflowService.describeWorkerDeployment({
          namespace: testEnv('temporalNamespace'),
          deploymentName: DEPLOYMENT_NAME,
        });
        expect(workerDeploymentInfo?.routingConfig?.currentDeploymentVersion?.buildId).toBe(buildId);

        for (const taskQueue of queues) {
          const decided = await client.workflow.start(WorkflowType.evaluateDecision, {
            taskQueue,
            workflowId: `versioning-decision-${randomUUID().slice(0, 8)}`,
            args: [DECISION_INPUT],
          });
          await expect(decided.result()).resolves.toHaveProperty('answers');
          expect(await versioningOf(decided)).toEqual({ behavior: 'PINNED', buildId });
        }

        // The starter's deploy commands see the build, and refuse what would strand runs.
        const status = await runStarter(['deploy', 'status']);
        expect(status.stdout).toMatch(new RegExp(`${buildId!.replace(/\./g, '\\.')}\\s+current`));
        const unknown = await runStarter(['deploy', 'current', 'no-such-build']);
        expect({ code: unknown.code, stderr: unknown.stderr }).toEqual({
          code: 2,
          stderr: expect.stringContaining('No build no-such-build has polled yet'),
        });
        const retireCurrent = await runStarter(['deploy', 'retire', buildId!, '--wait', '0']);
        expect({ code: retireCurrent.code, stderr: retireCurrent.stderr }).toEqual({
          code: 2,
          stderr: `${buildId} is current: make another build current first\n`,
        });
        expect((await runStarter(['deploy', 'retire', buildId!, '--wait', 'soon'])).stderr).toContain(
          '--wait: soon is not a whole number of minutes',
        );

        const ledger = await client.workflow.start(WorkflowType.budgetLedger, {
          taskQueue: queues[0],
          workflowId: `versioning-ledger-${randomUUID().slice(0, 8)}`,
          args: [{ memberId: `member-versioning-${randomUUID().slice(0, 8)}` }],
        });
        try {
          expect(await versioningOf(ledger)).toEqual({ behavior: 'AUTO_UPGRADE', buildId });
        } finally {
          await ledger.terminate('test over');
        }
      });
    } finally {
      const exits = workers.map((w) => new Promise((resolve) => w.child.once('exit', resolve)));
      for (const w of workers) w.child.kill('SIGTERM');
      await Promise.all(exits);
    }
  });

  it('keeps test workers unversioned', async () => {
    await withWorker('versioning-unversioned', async ({ client, taskQueue }) => {
      const handle = await client.workflow.start(WorkflowType.evaluateDecision, {
        taskQueue,
        workflowId: `versioning-unversioned-${randomUUID().slice(0, 8)}`,
        args: [DECISION_INPUT],
      });
      await handle.result();
      const { raw } = await handle.describe();
      expect(raw.workflowExecutionInfo?.versioningInfo?.behavior ?? Behavior.VERSIONING_BEHAVIOR_UNSPECIFIED).toBe(
        Behavior.VERSIONING_BEHAVIOR_UNSPECIFIED,
      );
    });
  });
});
