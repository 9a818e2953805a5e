// Every name that crosses a process boundary lives here: the task queue, workflow types, queries,
// signals, updates and search attributes. Workers, starters, tests and other-language clients (via
// the generated JSON Schemas) all use these. Pure: imported by workflow code.
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
// defineQuery is pure: safe to import from clients as well as from workflow code.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { BatchProgress, CancelBatchResult } from './schemas/batch';
import type {
  BudgetJobProgress,
  BudgetLedgerState,
  ReleaseBudgetRequest,
  ReleaseBudgetResult,
  ReserveBudgetRequest,
  ReserveBudgetResult,
} from './schemas/budget';
import type { MediaProgress } from './schemas/media';
import type { TaskCallback } from './schemas/task-callback';
import type { ReserveBudgetBatch, ReserveBudgetBatchResult } from './schemas/reserve-batch';

/** The default task queue; TEMPORAL_TASK_QUEUE overrides it (see src/config/temporal.ts). */
export const DEFAULT_TASK_QUEUE = 'platform-ops';

/**
 * The task queue of one operation's paid submits, beside the workflow's own queue `taskQueue`: every
 * worker polls it, and the server paces it for all of them at the platform quota's rate
 * (docs/rate-limits.md).
 */
export const quotaTaskQueue = (taskQueue: string, operation: string): string => `${taskQueue}.quota.${operation}`;

/** Whether a task queue is one of quotaTaskQueue's (it runs paced submits only, no workflows). */
export const isQuotaTaskQueue = (taskQueue: string): boolean => taskQueue.includes('.quota.');

/** Workflow type names: the exported function names of src/workflows. */
export const WorkflowType = {
  renewInstance: 'renewInstance',
  restartInstance: 'restartInstance',
  evaluateDecision: 'evaluateDecision',
  mediaGeneration: 'mediaGeneration',
  batchJob: 'batchJob',
  billingReport: 'billingReport',
  budgetGatedJob: 'budgetGatedJob',
  /** One per member, started by budgetGatedJob (update-with-start); not started by hand. */
  budgetLedger: 'budgetLedger',
  autoRenew: 'autoRenew',
  createInstance: 'createInstance',
  startInstance: 'startInstance',
  stopInstance: 'stopInstance',
  deleteInstance: 'deleteInstance',
} as const;
export type WorkflowTypeName = (typeof WorkflowType)[keyof typeof WorkflowType];
export const WORKFLOW_TYPES = Object.values(WorkflowType);
/** Workflow types a user starts (the ledger is started by the jobs that need it). */
export const STARTABLE_WORKFLOW_TYPES = WORKFLOW_TYPES.filter((t) => t !== WorkflowType.budgetLedger);

/** The workflow id of a member's budget ledger: one per member and namespace. */
export const budgetLedgerWorkflowId = (memberId: string): string => `budgetLedger:${memberId}`;

/**
 * The id of autoRenew's renewal of one instance for one expiry: any run that finds the same instance
 * with the same expiry derives the same id, so two overlapping runs cannot both start it.
 */
export const autoRenewalWorkflowId = (memberId: string, instanceId: string, endTime: string | number): string =>
  `autoRenew:${memberId}:${instanceId}:${String(endTime)}`;

/** Custom search attributes. Registered by the local dev server; on another cluster, see the README. */
export const SearchAttributes = {
  /** Which platform operation the workflow runs (its workflow type). */
  operation: defineSearchAttributeKey('PlatformOperation', SearchAttributeType.KEYWORD),
  /** The platform's id of the async task or batch the workflow follows. */
  taskId: defineSearchAttributeKey('PlatformTaskId', SearchAttributeType.KEYWORD),
  /** The workflow's business status (RENEWING, WAITING_FOR_RUNNING, …); changes, not every poll. */
  status: defineSearchAttributeKey('PlatformStatus', SearchAttributeType.KEYWORD),
  /** The team member whose budget pays. */
  memberId: defineSearchAttributeKey('PlatformMemberId', SearchAttributeType.KEYWORD),
  /** Estimated cost in 1/10000 USD. */
  costEstimate: defineSearchAttributeKey('PlatformCostEstimate', SearchAttributeType.INT),
  /** The GPU instance a workflow acts on. */
  instanceId: defineSearchAttributeKey('PlatformInstanceId', SearchAttributeType.KEYWORD),
  /**
   * A batch's request counts, updated at its checkpoints (status changes and every 10 % done). The
   * total is in the batchProgress query: the dev server's SQL visibility allows 3 Int attributes.
   */
  requestsCompleted: defineSearchAttributeKey('PlatformRequestsCompleted', SearchAttributeType.INT),
  requestsFailed: defineSearchAttributeKey('PlatformRequestsFailed', SearchAttributeType.INT),
} as const;

/** Name → type, as the dev server's `--search-attribute` flags and the operator API want them. */
export const SEARCH_ATTRIBUTE_DEFINITIONS: Record<string, 'Keyword' | 'Int'> = Object.fromEntries(
  Object.values(SearchAttributes).map((k) => [k.name, k.type === SearchAttributeType.INT ? 'Int' : 'Keyword']),
);

/** What every workflow answers to the `status` query: its business status and what it knows so far. */
/** What the `status` query answers; `S` is the workflow's status union (in its schema file). */
export interface WorkflowStatus<S extends string = string> {
  operation: WorkflowTypeName;
  status: S;
  /** Workflow-specific facts (statuses seen, questions answered …). */
  detail?: Record<string, unknown>;
}
export const statusQuery = defineQuery<WorkflowStatus>('status');

/** mediaGeneration's live progress: status, progress, eta, poll count and next poll time. */
export const mediaProgressQuery = defineQuery<MediaProgress>('mediaProgress');

/**
 * The end of a mediaGeneration's task, told by the platform's callback (sent by the webhook
 * receiver, src/webhooks): the workflow stops waiting for its next poll. Repeats are ignored.
 */
export const taskCallbackSignal = defineSignal<[TaskCallback]>('taskCallback');

/** batchJob's progress: status, request counts, polls, next poll time and the window's end. */
export const batchProgressQuery = defineQuery<BatchProgress>('batchProgress');

/** Cancels a batchJob's platform batch and answers its final state; refused once the batch has ended. */
export const cancelBatchUpdate = defineUpdate<CancelBatchResult, [{ reason?: string }]>('cancelBatch');

/** budgetGatedJob's admission, wait, gate and child, as of its last checkpoint. */
export const budgetJobProgressQuery = defineQuery<BudgetJobProgress>('budgetJobProgress');

/**
 * Re-check the budget now. To a budgetGatedJob: that job re-checks at once (after a top-up, say). To a
 * budgetLedger: every job of the member waiting for budget is told to re-check.
 */
export const recheckBudgetSignal = defineSignal('recheckBudget');

/**
 * Admits a job if the member's budget covers its cost plus every reservation the ledger holds, and
 * then holds the cost until released. Idempotent per reservationId.
 */
export const reserveBudgetUpdate = defineUpdate<ReserveBudgetResult, [ReserveBudgetRequest]>('reserveBudget');

/**
 * The memo key of an idempotent start (src/backend/start.ts): the caller's key, the input's sha256,
 * and the nonce of the call that started the run. Other-language clients may set it the same way.
 */
export const IDEMPOTENCY_MEMO = 'idempotency';
export interface IdempotencyMemo {
  key: string;
  fingerprint: string;
  nonce: string;
}

/** Gives a reservation back; releasing one the ledger does not hold answers `released: false`. */
export const releaseBudgetUpdate = defineUpdate<ReleaseBudgetResult, [ReleaseBudgetRequest]>('releaseBudget');

/**
 * reserveBudget for several requests at once (./schemas/reserve-batch.ts). This project's own
 * activities send it; other clients may send reserveBudget, one request at a time.
 */
export const reserveBudgetBatchUpdate = defineUpdate<ReserveBudgetBatchResult, [ReserveBudgetBatch]>(
  'reserveBudgetBatch',
);
/** A member's ledger: reservations held, their sum, waiting jobs and totals. */
export const budgetLedgerStateQuery = defineQuery<BudgetLedgerState>('budgetLedgerState');
