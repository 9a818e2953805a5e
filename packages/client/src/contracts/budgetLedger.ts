// The contract of budgetLedger: one workflow per member that holds each admitted job's cost until the job releases
// it, started by budgetGatedJob (update-with-start). Money is in 1/10000 USD, as on the platform.
import { z } from 'zod';
import { Amount, defineOperation, MemberId, query, signal, update, workflow } from '../contract';

export type BudgetLedgerStatus = 'IDLE' | 'HOLDING';

export const LedgerReservation = z.object({
  reservationId: z.string(),
  cost: z.number().int(),
  holderWorkflowId: z.string(),
  holderRunId: z.string().optional(),
  /** Epoch ms of the admitting check (the worker's clock); absent for free jobs, which are not checked. */
  admittedAt: z.number().optional(),
});
export type LedgerReservation = z.infer<typeof LedgerReservation>;

export const LedgerTotals = z.object({
  admitted: z.number().int(),
  refused: z.number().int(),
  released: z.number().int(),
  /** Reservations dropped because their job had ended without releasing them. */
  reclaimed: z.number().int(),
});
export type LedgerTotals = z.infer<typeof LedgerTotals>;

export const BudgetLedgerInput = z
  .strictObject({
    memberId: MemberId,
    /** State carried over by continue-as-new. */
    reservations: z.array(LedgerReservation).default([]),
    waiting: z.array(z.string()).default([]),
    recentlyReleased: z.array(z.string()).default([]),
    totals: LedgerTotals.default({ admitted: 0, refused: 0, released: 0, reclaimed: 0 }),
    /** Continue-as-new once the history has this many events (or the server suggests it). */
    continueAsNewAfterEvents: z.number().int().min(50).max(50_000).default(2_000),
    /** How often the holders of reservations are checked, so a job that died cannot hold budget for ever. */
    holderCheckSeconds: z.number().int().min(1).max(86_400).default(900),
  })
  .meta({
    title: 'budgetLedger input',
    description:
      "One member's budget reservations. Started by budgetGatedJob through update-with-start; not started by hand.",
  });
export type BudgetLedgerInput = z.input<typeof BudgetLedgerInput>;
export type ParsedBudgetLedgerInput = z.output<typeof BudgetLedgerInput>;

export const ReserveBudgetRequest = z.strictObject({
  reservationId: z.string().min(1).max(1_000),
  cost: Amount,
  holderWorkflowId: z.string().min(1).max(1_000),
  holderRunId: z.string().min(1).max(255).optional(),
  /** The holder waits on a refusal: the ledger tells it to re-check when budget may have been freed. */
  waiting: z.boolean().default(false),
});
export type ReserveBudgetRequest = z.input<typeof ReserveBudgetRequest>;

export interface ReserveBudgetResult {
  admitted: boolean;
  reservationId: string;
  cost: number;
  /** Other reservations of the member when this one was decided. */
  outstanding: number;
  /** cost + outstanding: what the platform was asked to cover. */
  checkedCost: number;
  /** The reservation existed already (a repeated request): the first answer stands. */
  alreadyHeld: boolean;
  /** Whether the platform was asked (a free job is admitted without asking). */
  checked: boolean;
  /** Epoch ms of the check, on the worker's clock. */
  checkedAt?: number;
}

export const ReleaseBudgetRequest = z.strictObject({
  reservationId: z.string().min(1).max(1_000),
  reason: z.string().max(1_000).optional(),
});
export type ReleaseBudgetRequest = z.input<typeof ReleaseBudgetRequest>;

export interface ReleaseBudgetResult {
  released: boolean;
  /** Freed amount (absent when nothing was held under that id). */
  cost?: number;
}

export const BudgetLedgerState = z
  .object({
    memberId: z.string(),
    /** Sum of the reservations held. */
    outstanding: z.number().int(),
    reservations: z.array(LedgerReservation),
    /** Jobs waiting for budget, told to re-check when some is freed. */
    waiting: z.array(z.string()),
    totals: LedgerTotals,
  })
  .meta({ title: 'budgetLedger state' });
export type BudgetLedgerState = z.infer<typeof BudgetLedgerState>;

// One Update carries every request a worker has waiting for a member: the server keeps at most 10 Updates of a
// workflow in flight, so one request per Update queues a burst behind them. Each is answered as its own reserveBudget.
/** Requests in one batched Update, at most: about 230 KB at the longest ids, far below the 2 MB limit. */
export const MAX_RESERVATIONS_PER_UPDATE = 100;

export const ReserveBudgetBatch = z.strictObject({
  requests: z.array(ReserveBudgetRequest).min(1).max(MAX_RESERVATIONS_PER_UPDATE),
});
export type ReserveBudgetBatch = z.input<typeof ReserveBudgetBatch>;

/** A failure of one request (the platform's answer to its check), as plain data the sender rebuilds. */
export interface ReservationFailure {
  type?: string;
  message: string;
  nonRetryable: boolean;
  details?: unknown[];
}

/** Per request, in the order sent: the answer a reserveBudget Update would give, or its failure. */
export type ReserveBudgetOutcome = { answer: ReserveBudgetResult } | { failure: ReservationFailure };

export interface ReserveBudgetBatchResult {
  outcomes: ReserveBudgetOutcome[];
}

/** The workflow id of a member's budget ledger: one per member and namespace. */
export const budgetLedgerWorkflowId = (memberId: string): string => `budgetLedger:${memberId}`;

export const budgetLedger = defineOperation({
  workflows: {
    // The ledger never completes on its own; its "result" is the state it would end with.
    budgetLedger: workflow(BudgetLedgerInput, BudgetLedgerState, (i) => [`budget ledger of member ${i.memberId}`], {
      internal: true,
    }),
  },
  queries: {
    /** Reservations held, their sum, waiting jobs and totals. */
    budgetLedgerState: query<BudgetLedgerState>('budgetLedgerState'),
  },
  signals: {
    /** Re-check the budget now: to a ledger, every waiting job of the member; to a budgetGatedJob, that job. */
    recheckBudget: signal('recheckBudget'),
  },
  updates: {
    /** Admits a job if the budget covers its cost plus all held, then holds it; idempotent per reservationId. */
    reserveBudget: update<ReserveBudgetResult, [ReserveBudgetRequest]>('reserveBudget'),
    /** Gives a reservation back; releasing one the ledger does not hold answers `released: false`. */
    releaseBudget: update<ReleaseBudgetResult, [ReleaseBudgetRequest]>('releaseBudget'),
    /** reserveBudget for several requests at once: what this service's own activities send. */
    reserveBudgetBatch: update<ReserveBudgetBatchResult, [ReserveBudgetBatch]>('reserveBudgetBatch'),
  },
});
export const budgetLedgerStateQuery = budgetLedger.queries.budgetLedgerState;
export const recheckBudgetSignal = budgetLedger.signals.recheckBudget;
export const {
  reserveBudget: reserveBudgetUpdate,
  releaseBudget: releaseBudgetUpdate,
  reserveBudgetBatch: reserveBudgetBatchUpdate,
} = budgetLedger.updates;
