// A member's budget ledger, reached from any operation's workflow: budgetGatedJob reserves its job's cost and waits for
// it, serverlessEndpoint holds its endpoint's. Workflows cannot send Updates to other workflows, so these activities
// do, with the worker's Temporal client. Every call is idempotent per reservationId, so retried attempts are harmless.
import { Context } from '@temporalio/activity';
import {
  WithStartWorkflowOperation,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type Client,
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
  SearchAttributes,
  WorkflowType,
} from '@platform-ops/client';
import { BatchLanes } from '../shared/lanes';
import { recordBudgetReleased, recordBudgetReserved } from '../metrics';

// Type aliases, not interfaces: the declarations of budgetGatedJob's activities, which spread these, spell them out.
type ReserveMemberBudgetInput = {
  memberId: string;
  request: ReserveBudgetRequest;
};

type AwaitBudgetAdmissionInput = ReserveMemberBudgetInput & {
  deadlineAt: number;
  initialIntervalMs: number;
  maxIntervalMs: number;
  checkFirst: boolean;
};

export interface AwaitBudgetAdmissionResult {
  admitted?: ReserveBudgetResult;
  lastRefusal?: ReserveBudgetResult;
  checks: number;
}

interface WaitHeartbeat {
  checks: number;
  intervalMs: number;
  nextCheckAt: number;
  lastRefusal?: ReserveBudgetResult;
}

// The server keeps at most 10 Updates of one workflow in flight. Each carries every request waiting for it.
const UPDATES_IN_FLIGHT = 5;
// So that a cancellation (a re-check signal) lands quickly.
const HEARTBEAT_EVERY_MS = 2_000;

const OUR_FAILURE_TYPES: ReadonlySet<string> = new Set(Object.values(FailureType));

/**
 * The ledger's failure with one of our types (an unknown member, a refused key) keeps its type and retryability.
 * Anything else (the server turning an Update away while the ledger's worker is busy, say) is worth another attempt.
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

function updateFailure(memberId: string, err: unknown): unknown {
  if (!(err instanceof WorkflowUpdateFailedError)) return err;
  return ledgerFailure(
    memberId,
    err.cause instanceof ApplicationFailure ? err.cause : { message: err.cause?.message ?? err.message },
  );
}

export function createMemberBudgetActivities({ temporal }: { temporal: Client }) {
  // The ledger decides requests that arrive together in one check anyway: a burst costs a few round trips.
  const lanes = new Map<string, BatchLanes<ReserveBudgetRequest, ReserveBudgetOutcome>>();
  const reserve = async (memberId: string, request: ReserveBudgetRequest): Promise<ReserveBudgetResult> => {
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

  // A ledger starts at the highest priority: the burst that creates it would otherwise queue its first task behind
  // every job's first task.
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
    async reserveMemberBudget({ memberId, request }: ReserveMemberBudgetInput): Promise<ReserveBudgetResult> {
      return reserve(memberId, request);
    },

    // One long activity instead of a timer and an activity per check: the history stays flat however long it waits.
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
  };
}
export type MemberBudgetActivities = ReturnType<typeof createMemberBudgetActivities>;
