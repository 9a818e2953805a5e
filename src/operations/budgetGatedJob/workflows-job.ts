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

// Past any job's own deadline.
const EARLIER_JOB_WAIT_MS = 8 * 24 * HOUR_MS;

const TAKES_MEMBER: readonly string[] = [WorkflowType.mediaGeneration, WorkflowType.batchJob];

// A run following an earlier run's job, when cancelled, cancels that job and holds its reservation until it ends.
const CANCEL_FOLLOWED_JOB = 'budget-cancel-followed-job';

// It is no child of this run, so this run's cancel is passed on to it, and the wait goes on until it has ended:
// its charge is known only then.
async function earlierJob(childId: string): Promise<{ result: unknown; resumed: Resumed }> {
  const { awaitEarlierJob } = proxyActivities<Activities>(retryAsPollOptions(EARLIER_JOB_WAIT_MS));
  const ended = () => summarized(awaitEarlierJob, `wait for job ${childId}, started before a reset`)(childId);
  try {
    return await ended();
  } catch (err) {
    if (isCancellation(err) && patched(CANCEL_FOLLOWED_JOB)) {
      await CancellationScope.nonCancellable(async () => {
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

/** In a run a reset started, follows the job the earlier run started under the same id: never a second one. */
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
      // A batch job then cancels its platform batch instead of running on unowned.
      parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
      ...(startedByReset() && { workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE }),
    });
    return { result };
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError && startedByReset()) return earlierJob(childId);
    onChildFailed();
    if (err instanceof ChildWorkflowFailure && err.cause instanceof ApplicationFailure) throw err.cause;
    throw err;
  }
}

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
