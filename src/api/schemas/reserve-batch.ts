// The ledger's batched reservation Update: every reservation request one worker has waiting for a
// member, sent as one Update. The server keeps at most 10 Updates of a workflow in flight, so with
// one request per Update (five in flight per worker) a burst queued behind a handful of them, one
// round trip each: 100 jobs at once waited 3.6-5.4 s (p50) for their turn in the budget-admission
// benchmark, most of an admission latency of 6-8 s. Each request in it is decided and answered
// exactly as a reserveBudget Update of its own would be; the batch only carries them.
// Its schema and types; the Update's name is in ../names.ts with every other one.
import { z } from 'zod';
import { ReserveBudgetRequest, type ReserveBudgetResult } from './budget';

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
