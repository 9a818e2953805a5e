// The job of a budget-gated run: a child workflow, or, in a run a reset started, the job the earlier run
// started under the same id, followed to its end.
import { WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy } from '@temporalio/common';
import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  ChildWorkflowFailure,
  executeChild,
  getExternalWorkflowHandle,
  isCancellation,
  ParentClosePolicy,
  patched,
  proxyActivities,
} from '@temporalio/workflow';
import { type Resumed, WorkflowType } from '@platform-ops/client';
import type { Activities } from './activities';
import { summarized } from '../../workflows/activity-summary';
import { HOUR_MS, retryAsPollOptions, startedByReset } from '../../workflows/retry-policies';

/** How long a reset run waits for the job an earlier run started: past any job's own deadline. */
const EARLIER_JOB_WAIT_MS = 8 * 24 * HOUR_MS;

/** Jobs whose input names the paying member and the expected cost (for their own search attributes). */
const TAKES_MEMBER: readonly string[] = [WorkflowType.mediaGeneration, WorkflowType.batchJob];

/**
 * 1.1: a run that follows an earlier run's job, when cancelled, cancels that job and holds its reservation
 * until the job has ended; runs started before released it at once and left the job running.
 */
const CANCEL_FOLLOWED_JOB = 'budget-cancel-followed-job';

/**
 * The job an earlier run started, which a reset left under the same id: waited for by its status
 * (awaitEarlierJob in src/operations/budgetGatedJob/activities.ts); its failure is this run's, as a child's is.
 * It is no child of this run, so this run's cancel is passed on to it as a child's would be, and the
 * wait goes on until it has ended: its charge is known only then, and the reservation is kept until then.
 */
async function earlierJob(childId: string): Promise<{ result: unknown; resumed: Resumed }> {
  const { awaitEarlierJob } = proxyActivities<Activities>(retryAsPollOptions(EARLIER_JOB_WAIT_MS));
  const ended = () => summarized(awaitEarlierJob, `wait for job ${childId}, started before a reset`)(childId);
  try {
    return await ended();
  } catch (err) {
    if (isCancellation(err) && patched(CANCEL_FOLLOWED_JOB)) {
      await CancellationScope.nonCancellable(async () => {
        // Already ended: nothing to cancel, and the wait below returns at once.
        await getExternalWorkflowHandle(childId)
          .cancel()
          .catch(() => undefined);
        await ended().catch(() => undefined);
      });
      throw err;
    }
    if (err instanceof ActivityFailure && err.cause instanceof ApplicationFailure) throw err.cause;
    throw err;
  }
}

/**
 * Runs the job as a child (`onChildFailed` is told before its failure becomes this run's), or, in a run a
 * reset started, follows the one the earlier run started under the same id: never a second one.
 */
export async function runJob(
  childId: string,
  workflowType: string,
  input: Record<string, unknown>,
  onChildFailed: () => void,
): Promise<{ result: unknown; resumed?: Resumed }> {
  try {
    const result: unknown = await executeChild(workflowType, {
      workflowId: childId,
      args: [input],
      // A parent that ends any other way (terminated, timed out) asks the job to cancel: a batch job
      // then cancels its platform batch instead of running on unowned.
      parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
      // A reset leaves the earlier run's job running (or ended) under this id: never a second one.
      ...(startedByReset() && { workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE }),
    });
    return { result };
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError && startedByReset()) return earlierJob(childId);
    onChildFailed();
    // The job's own failure, with its type (GenerationFailed, BatchFailed …), is this run's failure.
    if (err instanceof ChildWorkflowFailure && err.cause instanceof ApplicationFailure) throw err.cause;
    throw err;
  }
}

/** The job's input, with the paying member and the expected cost for the job types that take them. */
export function jobInputFor(
  workflowType: string,
  input: unknown,
  memberId: string,
  cost: number,
): Record<string, unknown> {
  const jobInput = input as Record<string, unknown>;
  return TAKES_MEMBER.includes(workflowType)
    ? { ...jobInput, memberId, costEstimate: jobInput.costEstimate ?? cost }
    : jobInput;
}
