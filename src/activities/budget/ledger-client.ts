// How a budget-gated job talks to its member's ledger. Workflows cannot send Updates to other
// workflows, so these activities do, with the worker's Temporal client: update-with-start creates the
// ledger on first use. Every call is idempotent per reservationId, so retried attempts are harmless.
import { Context } from '@temporalio/activity';
import {
  WithStartWorkflowOperation,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type Client,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { FailureType } from '../../api/failures';
import {
  budgetLedgerWorkflowId,
  releaseBudgetUpdate,
  reserveBudgetUpdate,
  SearchAttributes,
  WorkflowType,
} from '../../api/names';
import type {
  ReleaseBudgetRequest,
  ReleaseBudgetResult,
  ReserveBudgetRequest,
  ReserveBudgetResult,
} from '../../api/schemas/budget';
import { Lanes } from '../../shared/lanes';

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

/** Reservation requests of one member in flight from one worker (the server's limit per workflow is 10). */
const RESERVATIONS_IN_FLIGHT = 5;
/** Heartbeats at least this often while sleeping, so a cancellation (a re-check signal) lands quickly. */
const HEARTBEAT_EVERY_MS = 2_000;

const OUR_FAILURE_TYPES: ReadonlySet<string> = new Set(Object.values(FailureType));

/**
 * The ledger's handler failing with one of our failure types (the platform's answer to its budget
 * check: an unknown member, a refused key) keeps its type and retryability for the job. Anything else
 * (the server turning an Update away while the ledger's worker is busy, say) is worth another attempt.
 */
function ledgerFailure(memberId: string, err: unknown): unknown {
  if (!(err instanceof WorkflowUpdateFailedError)) return err;
  const cause = err.cause;
  const type = cause instanceof ApplicationFailure ? cause.type : undefined;
  const ours = cause instanceof ApplicationFailure && typeof type === 'string' && OUR_FAILURE_TYPES.has(type);
  return ApplicationFailure.create({
    type: ours ? type : FailureType.PlatformUnavailable,
    nonRetryable: ours ? (cause.nonRetryable ?? false) : false,
    message: `The budget ledger of member ${memberId}: ${cause?.message ?? err.message}`,
    details: ours && cause.details ? [...cause.details] : undefined,
  });
}

export function createLedgerClientActivities(temporal: Client) {
  // A few reservation requests per member at a time from this worker: the server keeps only ten
  // Updates of one workflow in flight and refuses the rest, and the ledger decides the ones that wait
  // together in one batch anyway.
  const lanes = new Map<string, Lanes>();
  const reserve = (memberId: string, request: ReserveBudgetRequest): Promise<ReserveBudgetResult> => {
    let lane = lanes.get(memberId);
    if (!lane) lanes.set(memberId, (lane = new Lanes(RESERVATIONS_IN_FLIGHT)));
    return lane.run(() => reserveNow(memberId, request));
  };

  const reserveNow = async (memberId: string, request: ReserveBudgetRequest): Promise<ReserveBudgetResult> => {
    // The ledger runs on the task queue of the job that first needs it.
    const { taskQueue } = Context.current().info;
    const startWorkflowOperation = new WithStartWorkflowOperation(WorkflowType.budgetLedger, {
      workflowId: budgetLedgerWorkflowId(memberId),
      taskQueue,
      args: [{ memberId }],
      workflowIdConflictPolicy: 'USE_EXISTING',
      typedSearchAttributes: [
        { key: SearchAttributes.operation, value: WorkflowType.budgetLedger },
        { key: SearchAttributes.memberId, value: memberId },
      ],
    });
    try {
      return await temporal.workflow.executeUpdateWithStart(reserveBudgetUpdate, {
        args: [request],
        startWorkflowOperation,
      });
    } catch (err) {
      throw ledgerFailure(memberId, err);
    }
  };

  return {
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
      let checkNow = input.checkFirst || resumed !== undefined;

      for (;;) {
        if (!checkNow) {
          // Up to ±20 %: jobs refused together must not all come back together.
          const gap = Math.round(intervalMs * (0.8 + Math.random() * 0.4));
          const nextCheckAt = Math.min(Date.now() + gap, input.deadlineAt);
          intervalMs = Math.min(intervalMs * 2, input.maxIntervalMs);
          const beat: WaitHeartbeat = { checks, intervalMs, nextCheckAt, lastRefusal };
          while (Date.now() < nextCheckAt) {
            ctx.heartbeat(beat);
            await ctx.sleep(Math.min(HEARTBEAT_EVERY_MS, nextCheckAt - Date.now()));
          }
        }
        checkNow = false;
        const answer = await reserve(input.memberId, input.request);
        checks++;
        if (answer.admitted) return { admitted: answer, lastRefusal, checks };
        lastRefusal = answer;
        if (Date.now() >= input.deadlineAt) return { lastRefusal, checks };
        ctx.heartbeat({
          checks,
          intervalMs,
          nextCheckAt: Date.now() + intervalMs,
          lastRefusal,
        } satisfies WaitHeartbeat);
      }
    },

    /** Gives the reservation back. Idempotent: a ledger that holds nothing under the id says so. */
    async releaseMemberBudget(input: {
      memberId: string;
      request: ReleaseBudgetRequest;
    }): Promise<ReleaseBudgetResult> {
      const ledger = temporal.workflow.getHandle(budgetLedgerWorkflowId(input.memberId));
      try {
        return await ledger.executeUpdate(releaseBudgetUpdate, { args: [input.request] });
      } catch (err) {
        // No ledger: nothing was ever reserved for this member.
        if (err instanceof WorkflowNotFoundError) return { released: false };
        throw ledgerFailure(input.memberId, err);
      }
    },
  };
}
