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
  admittedAt: z.number().optional(),
});
export type LedgerReservation = z.infer<typeof LedgerReservation>;

export const LedgerTotals = z.object({
  admitted: z.number().int(),
  refused: z.number().int(),
  released: z.number().int(),
  reclaimed: z.number().int(),
});
export type LedgerTotals = z.infer<typeof LedgerTotals>;

export const BudgetLedgerInput = z
  .strictObject({
    memberId: MemberId,
    reservations: z.array(LedgerReservation).default([]),
    waiting: z.array(z.string()).default([]),
    recentlyReleased: z.array(z.string()).default([]),
    totals: LedgerTotals.default({ admitted: 0, refused: 0, released: 0, reclaimed: 0 }),
    continueAsNewAfterEvents: z.number().int().min(50).max(50_000).default(2_000),
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
  waiting: z.boolean().default(false),
});
export type ReserveBudgetRequest = z.input<typeof ReserveBudgetRequest>;

export interface ReserveBudgetResult {
  admitted: boolean;
  reservationId: string;
  cost: number;
  outstanding: number;
  checkedCost: number;
  alreadyHeld: boolean;
  checked: boolean;
  checkedAt?: number;
}

export const ReleaseBudgetRequest = z.strictObject({
  reservationId: z.string().min(1).max(1_000),
  reason: z.string().max(1_000).optional(),
});
export type ReleaseBudgetRequest = z.input<typeof ReleaseBudgetRequest>;

export interface ReleaseBudgetResult {
  released: boolean;
  cost?: number;
}

export const BudgetLedgerState = z
  .object({
    memberId: z.string(),
    outstanding: z.number().int(),
    reservations: z.array(LedgerReservation),
    waiting: z.array(z.string()),
    totals: LedgerTotals,
  })
  .meta({ title: 'budgetLedger state' });
export type BudgetLedgerState = z.infer<typeof BudgetLedgerState>;

// One Update carries every request a worker has waiting for a member: the server keeps at most 10 Updates of a
// workflow in flight, so one request per Update queues a burst behind them. Each is answered as its own reserveBudget.
export const MAX_RESERVATIONS_PER_UPDATE = 100;

export const ReserveBudgetBatch = z.strictObject({
  requests: z.array(ReserveBudgetRequest).min(1).max(MAX_RESERVATIONS_PER_UPDATE),
});
export type ReserveBudgetBatch = z.input<typeof ReserveBudgetBatch>;

export interface ReservationFailure {
  type?: string;
  message: string;
  nonRetryable: boolean;
  details?: unknown[];
}

export type ReserveBudgetOutcome = { answer: ReserveBudgetResult } | { failure: ReservationFailure };

export interface ReserveBudgetBatchResult {
  outcomes: ReserveBudgetOutcome[];
}

export const budgetLedgerWorkflowId = (memberId: string): string => `budgetLedger:${memberId}`;

export const budgetLedger = defineOperation({
  workflows: {
    // The ledger never completes on its own; its "result" is the state it would end with.
    budgetLedger: workflow(BudgetLedgerInput, BudgetLedgerState, (i) => [`budget ledger of member ${i.memberId}`], {
      internal: true,
    }),
  },
  queries: { budgetLedgerState: query<BudgetLedgerState>('budgetLedgerState') },
  signals: { recheckBudget: signal('recheckBudget') },
  updates: {
    reserveBudget: update<ReserveBudgetResult, [ReserveBudgetRequest]>('reserveBudget'),
    releaseBudget: update<ReleaseBudgetResult, [ReleaseBudgetRequest]>('releaseBudget'),
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
