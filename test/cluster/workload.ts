// Workflows of every type in flight, and what a fault must not break: every workflow completes,
// nothing paid is submitted twice, no budget reservation is left held.
import { randomUUID } from 'node:crypto';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { budgetLedgerStateQuery, budgetLedgerWorkflowId, WorkflowType } from '../../src/api';
import { chaosInput } from '../../bench/chaos/workload';
import { failureTypeOf } from '../../bench/chaos/outcomes';
import { duplicatePaid, type PaidCounter } from '../../bench/chaos/tally';
import { DEMO_MEMBER_ID } from '../../src/emulator/fixtures';
import { emulatorAdmin } from '../helpers/emulator';

/** Each type of a run, this many times (7 types: 210 workflows in flight a run). */
export const PER_TYPE = 30;
// Long enough that a fault lands while every generation still waits for its task.
const TASK_MS = 15_000;
const RESULT_TIMEOUT_MS = 6 * 60_000;

export const instanceIds = (run: string) =>
  Array.from({ length: PER_TYPE }, (_, i) => [`inst-${run}-renew-${i}`, `inst-${run}-restart-${i}`]).flat();

const video = (prompt: string) => ({
  operation: 'text-to-video' as const,
  request: { prompt: `${prompt} [emulator:duration=${TASK_MS}]`, duration: 5 },
});

export interface RunFigures {
  run: string;
  workflows: number;
  completed: number;
  failed: number;
  /** Failed workflows by `<workflow type>: <failure type>`, so a failed run says what failed. */
  failedBy: Record<string, number>;
  lost: number;
  duplicatePaidSubmissions: number;
  leakedReservations: number;
  seconds: number;
}

interface Counters {
  /** Paid calls the emulator carried out, by route and by what they were about (paid-calls.ts). */
  paid: PaidCounter;
}

/** Starts the mix, runs `fault` while it is in flight, and waits for every workflow. */
export async function runWithFault(
  address: string,
  emulatorUrl: string,
  run: string,
  fault: () => Promise<void>,
): Promise<RunFigures> {
  const started = Date.now();
  await emulatorAdmin(emulatorUrl, 'POST', '/counters/reset');
  // No limit: the ledger's bookkeeping is what is checked here, not admission.
  await emulatorAdmin(emulatorUrl, 'PUT', `/members/${DEMO_MEMBER_ID}/budget`, { remaining: null });
  const connection = await Connection.connect({ address });
  try {
    const client = new Client({ connection, namespace: 'default' });
    const start = (type: string, i: number, input: unknown): Promise<WorkflowHandle> =>
      client.workflow.start(type, {
        taskQueue: 'platform-ops',
        workflowId: `${run}-${type}-${i}-${randomUUID().slice(0, 6)}`,
        args: [input],
      });
    const handles: WorkflowHandle[] = [];
    for (let i = 0; i < PER_TYPE; i++) {
      handles.push(
        await start(WorkflowType.renewInstance, i, { instanceId: `inst-${run}-renew-${i}`, months: 1 }),
        await start(WorkflowType.restartInstance, i, { instanceId: `inst-${run}-restart-${i}`, pollInitialSeconds: 1 }),
        await start(WorkflowType.evaluateDecision, i, {
          state: `case ${i}`,
          questions: [{ kind: 'yes_no', question: 'Is it fine?' }],
        }),
        await start(WorkflowType.mediaGeneration, i, video(`a fox ${i}`)),
        await start(WorkflowType.budgetGatedJob, i, {
          memberId: DEMO_MEMBER_ID,
          job: { workflowType: 'mediaGeneration', input: video(`a gated fox ${i}`) },
        }),
      );
      // The fault suite's batch (three chat requests) and bill report (two months by day).
      for (const type of [WorkflowType.batchJob, WorkflowType.billingReport] as const) {
        handles.push(await start(type, i, chaosInput(type, run, i, `${run}-${type}-${i}`)));
      }
    }
    await fault();

    const deadline = new Promise<'lost'>((resolve) => setTimeout(() => resolve('lost'), RESULT_TIMEOUT_MS).unref());
    const failedBy: Record<string, number> = {};
    const outcomes = await Promise.all(
      handles.map((h) =>
        Promise.race([
          h.result().then(
            () => 'completed' as const,
            (err: unknown) => {
              const key = `${h.workflowId.slice(run.length + 1).split('-')[0]}: ${failureTypeOf(err)}`;
              failedBy[key] = (failedBy[key] ?? 0) + 1;
              return 'failed' as const;
            },
          ),
          deadline,
        ]),
      ),
    );
    const counters = await emulatorAdmin<Counters>(emulatorUrl, 'GET', '/counters');
    const ledger = await client.workflow
      .getHandle(budgetLedgerWorkflowId(DEMO_MEMBER_ID))
      .query(budgetLedgerStateQuery);
    return {
      run,
      workflows: handles.length,
      completed: outcomes.filter((o) => o === 'completed').length,
      failed: outcomes.filter((o) => o === 'failed').length,
      failedBy,
      lost: outcomes.filter((o) => o === 'lost').length,
      // Any paid call carried out twice for the same thing (a renew, a generation, a batch, a question).
      duplicatePaidSubmissions: duplicatePaid(counters.paid).total,
      leakedReservations: ledger.outstanding,
      seconds: Math.round((Date.now() - started) / 1000),
    };
  } finally {
    await connection.close();
  }
}
