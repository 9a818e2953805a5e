// The cluster suite's deploy run (docs/versioning.md, "Rolling a new build"): build B's workers start
// beside A's, the mix starts on A, and while it is at work B is made current, as `npm run starter -- deploy
// current` does; a few new runs start after that. Once every run has ended, A's workers stop and A is
// retired as `deploy retire` does. Where each run finished is read from its versioning info.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { CHAOS_MEMBER, CHAOS_TYPES, chaosInput, type ChaosType } from '../../bench/chaos/workload';
import { deploymentVersions, retireVersion, setCurrentVersion } from '../../src/worker-deployment';
import { budgetLedgerWorkflowId, loadDataConverter } from '@platform-ops/client';
import { A_BUILD, type ClusterStack } from './stack';
import { PER_TYPE, runWithFault, type RunFigures } from './workload';

export const DEPLOY_RUN = 'deploy';
const B_BUILD = 'cluster-b';
/** Let the mix get going on A (submitted, polling, reserved) before B rolls out. */
const IN_FLIGHT_MS = 4_000;
/** Types whose runs need no fixture of their own, started once each after B is current. */
const AFTER_TYPES: ChaosType[] = ['evaluateDecision', 'mediaGeneration', 'billingReport', 'batchJob', 'budgetGatedJob'];
/** Drained (a refresh every 10 s after a 30 s grace) and forgotten as a poller (2 min): a few minutes. */
const RETIRE_WAIT_MS = 8 * 60_000;
const Behavior = temporal.api.enums.v1.VersioningBehavior;

export interface DeployFigures {
  run: RunFigures;
  builds: {
    pinnedOnA: number;
    /** PINNED runs of the mix that finished anywhere but on A (must be 0). */
    pinnedNotOnA: number;
    /** AUTO_UPGRADE runs of the mix that finished on B: they moved (those that ended before the switch did not). */
    autoUpgradeOnB: number;
    newRunsOnB: number;
    newRunsNotOnB: number;
    ledgerBuild: string;
    nondeterminismInLogs: number;
    retired: boolean;
    retireSeconds: number;
  };
}

async function buildOf(client: Client, workflowId: string): Promise<{ behavior: string; buildId: string }> {
  const info = (await client.workflow.getHandle(workflowId).describe()).raw.workflowExecutionInfo?.versioningInfo;
  return {
    behavior: Behavior[info?.behavior ?? 0].replace('VERSIONING_BEHAVIOR_', ''),
    buildId: info?.deploymentVersion?.buildId ?? 'unversioned',
  };
}

export async function deployRun(stack: ClusterStack): Promise<DeployFigures> {
  const connection = await Connection.connect({ address: stack.cluster.address });
  const client = new Client({ connection, namespace: 'default', dataConverter: loadDataConverter() });
  try {
    const after: string[] = [];
    // B's workers poll beside A's before the mix starts; B gets nothing until it is made current.
    await stack.startWorkers(B_BUILD);
    const run = await runWithFault(stack.cluster.address, stack.emulatorUrl, DEPLOY_RUN, async () => {
      await new Promise((r) => setTimeout(r, IN_FLIGHT_MS));
      await setCurrentVersion(client, 'default', B_BUILD, 'cluster suite');
      for (const type of AFTER_TYPES) {
        const workflowId = `${DEPLOY_RUN}-after-${type}`;
        await client.workflow.start(type, {
          taskQueue: 'platform-ops',
          workflowId,
          args: [chaosInput(type, `${DEPLOY_RUN}-after`, 0, workflowId)],
        });
        after.push(workflowId);
      }
      // Ended before the run's reservations are counted: the budget-gated one holds one while it runs.
      await Promise.all(after.map((id) => client.workflow.getHandle(id).result()));
    });

    const mix = CHAOS_TYPES.flatMap((type) => Array.from({ length: PER_TYPE }, (_, i) => `${DEPLOY_RUN}-${type}-${i}`));
    const ended = await Promise.all(mix.map((id) => buildOf(client, id)));
    const pinned = ended.filter((e) => e.behavior === 'PINNED');
    const newRuns = await Promise.all(after.map((id) => buildOf(client, id)));
    const ledger = await buildOf(client, budgetLedgerWorkflowId(CHAOS_MEMBER));

    // A's workers stop, then A is retired once drained and forgotten as a poller.
    await stack.workers.stop();
    const retireStarted = Date.now();
    await retireVersion(client, 'default', A_BUILD, {
      waitMs: RETIRE_WAIT_MS,
      identity: 'cluster suite',
      say: (line) => process.stderr.write(`[cluster suite] ${line}\n`),
    });
    const versions = await deploymentVersions(client, 'default');
    const logs = readdirSync(stack.cluster.logDir).filter((f) => f.startsWith('cluster-'));
    const nondeterminism = logs
      .map(
        (f) => readFileSync(path.join(stack.cluster.logDir, f), 'utf8').match(/nondetermin|TMPRL1100/gi)?.length ?? 0,
      )
      .reduce((a, b) => a + b, 0);
    return {
      run,
      builds: {
        pinnedOnA: pinned.filter((e) => e.buildId === A_BUILD).length,
        pinnedNotOnA: pinned.filter((e) => e.buildId !== A_BUILD).length,
        autoUpgradeOnB: ended.filter((e) => e.behavior === 'AUTO_UPGRADE' && e.buildId === B_BUILD).length,
        newRunsOnB: newRuns.filter((e) => e.buildId === B_BUILD).length,
        newRunsNotOnB: newRuns.filter((e) => e.buildId !== B_BUILD).length,
        ledgerBuild: ledger.buildId,
        nondeterminismInLogs: nondeterminism,
        retired: !versions.some((v) => v.buildId === A_BUILD),
        retireSeconds: Math.round((Date.now() - retireStarted) / 1000),
      },
    };
  } finally {
    await connection.close();
  }
}
