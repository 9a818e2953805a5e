// The budget-gated job activities: pricing (./price.ts), and the job's side of its member's ledger
// (reserve, wait, release; the ledger's own activities are in ../budgetLedger/activities.ts).
// Workflows cannot send Updates to other workflows, so these activities do, with the worker's
// Temporal client: update-with-start creates the ledger on first use. Every call is idempotent per
// reservationId, so retried attempts are harmless.
import { Context } from '@temporalio/activity';
import {
  WithStartWorkflowOperation,
  WorkflowFailedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
} from '@temporalio/client';
import { ApplicationFailure, type UpdateDefinition } from '@temporalio/common';
import {
  budgetLedgerWorkflowId,
  FailureType,
  MAX_RESERVATIONS_PER_UPDATE,
  type ReleaseBudgetRequest,
  type ReleaseBudgetResult,
  releaseBudgetUpdate,
  reserveBudgetBatchUpdate,
  type ReserveBudgetOutcome,
  ReserveBudgetRequest,
  type ReserveBudgetResult,
  reserveBudgetUpdate,
  type Resumed,
  SearchAttributes,
  WorkflowType,
} from '@platform-ops/client';
import type { ActivityDeps } from '../activities-deps';
import { pollAgainIn } from '../../activities/retries';
import { BatchLanes } from '../../shared/lanes';
import { recordBudgetReleased, recordBudgetReserved } from '../../metrics';
import { createPriceActivities } from './activities-price';

/** The longest gap between two looks at an earlier run's job. */
const EARLIER_JOB_MAX_GAP_MS = 60_000;

export { priceQuantities, type PriceBudgetJobInput, type PriceBudgetJobResult } from './activities-price';

export interface ReserveMemberBudgetInput {
  memberId: string;
  request: ReserveBudgetRequest;
}

export interface AwaitBudgetAdmissionInput extends ReserveMemberBudgetInput {
  /** Epoch ms (the worker's clock) after which the job stops waiting. */
  deadlineAt: number;
  initialIntervalMs: number;
  maxIntervalMs: number;
  /** Check at once (after a re-check signal) instead of waiting one interval first. */
  checkFirst: boolean;
}

export interface AwaitBudgetAdmissionResult {
  /** The admitting answer; absent when the deadline came first. */
  admitted?: ReserveBudgetResult;
  /** The last refusal, if any check was refused. */
  lastRefusal?: ReserveBudgetResult;
  /** Checks made by this activity (all its attempts). */
  checks: number;
}

/** What a waiting job heartbeats: enough to resume after a lost worker, and to show progress. */
interface WaitHeartbeat {
  checks: number;
  intervalMs: number;
  nextCheckAt: number;
  lastRefusal?: ReserveBudgetResult;
}

/**
 * Reservation Updates of one member in flight from one worker (the server keeps at most 10 Updates
 * of one workflow in flight). Each carries every request that was waiting for it, so this bounds
 * the Updates, not the requests: a burst of 100 goes in a few Updates of many.
 */
const UPDATES_IN_FLIGHT = 5;
/** Heartbeats at least this often while sleeping, so a cancellation (a re-check signal) lands quickly. */
const HEARTBEAT_EVERY_MS = 2_000;

const OUR_FAILURE_TYPES: ReadonlySet<string> = new Set(Object.values(FailureType));

/**
 * The ledger's handler failing (the Update's own failure, or a request's in a batched Update's answer)
 * with one of our failure types (the platform's answer to its budget
 * check: an unknown member, a refused key) keeps its type and retryability for the job. Anything else
 * (the server turning an Update away while the ledger's worker is busy, say) is worth another attempt.
 */
function ledgerFailure(
  memberId: string,
  { type, message, nonRetryable, details }: Pick<ApplicationFailure, 'type' | 'message' | 'nonRetryable' | 'details'>,
): ApplicationFailure {
  const ours = typeof type === 'string' && OUR_FAILURE_TYPES.has(type);
  return ApplicationFailure.create({
    type: ours ? type : FailureType.PlatformUnavailable,
    nonRetryable: ours && (nonRetryable ?? false),
    message: `The budget ledger of member ${memberId}: ${message}`,
    details: ours && details ? [...details] : undefined,
  });
}

/** A failed Update (the handler's failure, or the validator's refusal) as an activity failure. */
function updateFailure(memberId: string, err: unknown): unknown {
  if (!(err instanceof WorkflowUpdateFailedError)) return err;
  return ledgerFailure(
    memberId,
    err.cause instanceof ApplicationFailure ? err.cause : { message: err.cause?.message ?? err.message },
  );
}

export function createBudgetActivities({ temporal, prices }: ActivityDeps) {
  // Requests per member wait for one of a few Updates in flight from this worker, and then go
  // together in the next one (src/shared/lanes.ts): the ledger decides the requests that arrive together
  // in one check anyway, so the burst costs a few round trips, not one per request.
  const lanes = new Map<string, BatchLanes<ReserveBudgetRequest, ReserveBudgetOutcome>>();
  const reserve = async (memberId: string, request: ReserveBudgetRequest): Promise<ReserveBudgetResult> => {
    // The ledger runs on the task queue of the job that first needs it (one task queue per worker).
    const { taskQueue } = Context.current().info;
    // A request the ledger's validator would refuse goes alone, so the refusal stays its own.
    if (!ReserveBudgetRequest.safeParse(request).success) {
      return updateLedger(memberId, taskQueue, reserveBudgetUpdate, request);
    }
    let lane = lanes.get(memberId);
    if (!lane) {
      lane = new BatchLanes(
        UPDATES_IN_FLIGHT,
        MAX_RESERVATIONS_PER_UPDATE,
        async (requests) => (await updateLedger(memberId, taskQueue, reserveBudgetBatchUpdate, { requests })).outcomes,
      );
      lanes.set(memberId, lane);
    }
    const outcome = await lane.run(request);
    if ('failure' in outcome) throw ledgerFailure(memberId, outcome.failure);
    if (outcome.answer.admitted && !outcome.answer.alreadyHeld) recordBudgetReserved(memberId, outcome.answer.cost);
    return outcome.answer;
  };

  // Update-with-start: one round trip that creates the ledger if need be and waits for the answer. A
  // ledger starts at the highest priority: every admission of its member waits on its tasks, and the
  // burst that creates it would otherwise queue its first task behind every job's first task.
  const updateLedger = async <Arg, Ret>(
    memberId: string,
    taskQueue: string,
    update: UpdateDefinition<Ret, [Arg]>,
    arg: Arg,
  ): Promise<Ret> => {
    const startWorkflowOperation = new WithStartWorkflowOperation(WorkflowType.budgetLedger, {
      workflowId: budgetLedgerWorkflowId(memberId),
      taskQueue,
      args: [{ memberId }],
      workflowIdConflictPolicy: 'USE_EXISTING',
      priority: { priorityKey: 1 },
      typedSearchAttributes: [
        { key: SearchAttributes.operation, value: WorkflowType.budgetLedger },
        { key: SearchAttributes.memberId, value: memberId },
      ],
    });
    try {
      return await temporal.workflow.executeUpdateWithStart(update, { args: [arg], startWorkflowOperation });
    } catch (err) {
      throw updateFailure(memberId, err);
    }
  };

  return {
    ...createPriceActivities(prices),

    /** One admission check through the member's ledger: admitted (and held) or refused. */
    async reserveMemberBudget({ memberId, request }: ReserveMemberBudgetInput): Promise<ReserveBudgetResult> {
      return reserve(memberId, request);
    },

    /**
     * Re-checks on a growing, jittered interval until admitted or past the deadline. One long activity
     * instead of a timer and an activity per check: the job's history stays flat however long it waits.
     * Cancelled by the workflow when a re-check signal arrives (the next attempt checks at once).
     */
    async awaitBudgetAdmission(input: AwaitBudgetAdmissionInput): Promise<AwaitBudgetAdmissionResult> {
      const ctx = Context.current();
      const resumed = ctx.info.heartbeatDetails as WaitHeartbeat | undefined;
      let checks = resumed?.checks ?? 0;
      let intervalMs = resumed?.intervalMs ?? input.initialIntervalMs;
      let lastRefusal = resumed?.lastRefusal;
      // A resumed attempt (its worker was lost) cannot tell how long ago the last check was: check now.
      for (let checkNow = input.checkFirst || resumed !== undefined; ; checkNow = false) {
        if (!checkNow) {
          // Up to ±20 %: jobs refused together must not all come back together.
          const gap = Math.round(intervalMs * (0.8 + Math.random() * 0.4));
          const nextCheckAt = Math.min(Date.now() + gap, input.deadlineAt);
          intervalMs = Math.min(intervalMs * 2, input.maxIntervalMs);
          while (Date.now() < nextCheckAt) {
            ctx.heartbeat({ checks, intervalMs, nextCheckAt, lastRefusal } satisfies WaitHeartbeat);
            await ctx.sleep(Math.min(HEARTBEAT_EVERY_MS, nextCheckAt - Date.now()));
          }
        }
        const answer = await reserve(input.memberId, input.request);
        checks++;
        if (answer.admitted) return { admitted: answer, lastRefusal, checks };
        lastRefusal = answer;
        if (Date.now() >= input.deadlineAt) return { lastRefusal, checks };
      }
    },

    /** Gives the reservation back. Idempotent: a ledger that holds nothing under the id says so. */
    async releaseMemberBudget(input: {
      memberId: string;
      request: ReleaseBudgetRequest;
    }): Promise<ReleaseBudgetResult> {
      const ledger = temporal.workflow.getHandle(budgetLedgerWorkflowId(input.memberId));
      try {
        const result = await ledger.executeUpdate(releaseBudgetUpdate, { args: [input.request] });
        if (result.released) recordBudgetReleased(input.memberId, result.cost ?? 0, input.request.reason);
        return result;
      } catch (err) {
        // No ledger: nothing was ever reserved for this member.
        if (err instanceof WorkflowNotFoundError) return { released: false };
        throw updateFailure(input.memberId, err);
      }
    },

    /**
     * The result of a job an earlier run of this budget-gated job started, which a reset left running
     * under the same id (a reset touches no child): retry-as-poll on its status, then its result, or
     * its own failure as final.
     */
    async awaitEarlierJob(workflowId: string): Promise<{ result: unknown; resumed: Resumed }> {
      const { attempt } = Context.current().info;
      const handle = temporal.workflow.getHandle(workflowId);
      const { status, parentExecution } = await handle.describe();
      if (status.name === 'RUNNING') {
        const gap = Math.min(EARLIER_JOB_MAX_GAP_MS, 1_000 * 2 ** Math.min(attempt - 1, 10));
        throw pollAgainIn(gap, `job ${workflowId} of an earlier run is still running`, { workflowId });
      }
      const found = `job ${workflowId}, started by the earlier run (${status.name.toLowerCase()})`;
      const resumed = { runId: parentExecution?.runId ?? '', call: 'executeChild', found };
      try {
        return { result: await handle.result(), resumed };
      } catch (err) {
        if (!(err instanceof WorkflowFailedError)) throw err;
        const { cause } = err;
        // Cancelled, terminated or timed out: it ended, and no wait will bring a result.
        if (!(cause instanceof ApplicationFailure)) {
          throw ApplicationFailure.nonRetryable(
            `job ${workflowId} of an earlier run ended ${status.name.toLowerCase()}, without a result`,
            FailureType.JobStopped,
          );
        }
        const { type, message, details } = cause;
        throw ApplicationFailure.create({
          type: type ?? undefined,
          message,
          nonRetryable: true,
          details: details ?? undefined,
        });
      }
    },
  };
}
export type Activities = ReturnType<typeof createBudgetActivities>;
