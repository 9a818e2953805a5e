// Workflows of every type in flight, and what a fault must not break: every workflow completes,
// nothing paid is submitted twice, no budget reservation is left held. The inputs and the emulator's
// starting state are the fault suite's (bench/chaos/workload.ts), one wave per run, so a new workflow
// type gets its place here by getting one there (its switch fails the typecheck until it does).
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { autoRenewMember, CHAOS_MEMBER, CHAOS_TYPES, chaosInput } from '../../bench/chaos/workload';
import { heldReservations } from '../../bench/chaos/ledgers';
import { failureTypeOf } from '../../bench/chaos/outcomes';
import { duplicatePaid, type PaidCounter } from '../../bench/chaos/tally';
import { emulatorAdmin } from '../helpers/emulator';
import { loadDataConverter } from '@platform-ops/client';

/** Each type of a run, this many times (12 types: 204 workflows in flight a run). */
export const PER_TYPE = 17;
const RESULT_TIMEOUT_MS = 6 * 60_000;

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
  const connection = await Connection.connect({ address });
  try {
    const client = new Client({ connection, namespace: 'default', dataConverter: loadDataConverter() });
    const handles: WorkflowHandle[] = [];
    // The types interleaved, so the last starts, still at work when the fault strikes, are of every type.
    for (let i = 0; i < PER_TYPE; i++) {
      for (const type of CHAOS_TYPES) {
        const workflowId = `${run}-${type}-${i}`;
        handles.push(
          await client.workflow.start(type, {
            taskQueue: 'platform-ops',
            workflowId,
            args: [chaosInput(type, run, i, workflowId)],
          }),
        );
      }
    }
    await fault();

    const deadline = new Promise<'lost'>((resolve) => setTimeout(() => resolve('lost'), RESULT_TIMEOUT_MS).unref());
    const failedBy: Record<string, number> = {};
    const outcomes = await Promise.all(
      handles.map((h) =>
        Promise.race([
          // The id's latest run: after a reset by query, the run that carries on (a reset terminates the one started).
          client.workflow
            .getHandle(h.workflowId)
            .result()
            .then(
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
    // The budget-gated jobs' member and the run's auto-renew member: null if a ledger does not answer.
    const held = await heldReservations(client, [CHAOS_MEMBER, autoRenewMember(run)], (msg) =>
      process.stderr.write(`[cluster suite] ${msg}\n`),
    );
    return {
      run,
      workflows: handles.length,
      completed: outcomes.filter((o) => o === 'completed').length,
      failed: outcomes.filter((o) => o === 'failed').length,
      failedBy,
      lost: outcomes.filter((o) => o === 'lost').length,
      // Any paid call carried out twice for the same thing (a renew, a generation, a batch, a question).
      duplicatePaidSubmissions: duplicatePaid(counters.paid).total,
      leakedReservations: held === null ? Number.NaN : held.length,
      seconds: Math.round((Date.now() - started) / 1000),
    };
  } finally {
    await connection.close();
  }
}
