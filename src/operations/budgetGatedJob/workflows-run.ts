import { upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import {
  budgetLedgerWorkflowId,
  BudgetGatedJobInput,
  DEFAULT_BUDGET_WAIT,
  parseInput,
  SearchAttributes,
  WorkflowType,
  type BudgetAdmission,
  type BudgetGatedJobResult,
  type BudgetGatedJobStatus,
  type BudgetJobProgress,
  type ParsedBudgetGatedJobInput,
  type ParsedBudgetWaitOptions,
  type ReserveBudgetRequest,
  type ReserveBudgetResult,
} from '@platform-ops/client';
import type { PriceBudgetJobResult } from './activities';
import { chargesAtMost, imagesIn, jobQuantities } from './quantities';
import { usdText } from '../../platform/money';
import { isoTime } from '../../shared/time';
import { trackProgress } from '../../workflows/status';
import { prepareGate, type PreparedGate } from './workflows-gate';

export type ResultBeforeRelease = Omit<BudgetGatedJobResult, 'released'>;

export interface JobCost {
  cost: number;
  costBreakdown?: string;
  gateCost: number;
  reserved: number;
}

export interface LedgerAdmission {
  answer: ReserveBudgetResult;
  checks: number;
  firstCheckedAt?: number;
  /** A check was cancelled mid-flight (by a re-check signal): it may have reserved, so release anyway. */
  mayHold: boolean;
}

const progressOf = (initial: BudgetJobProgress, memberId: string) =>
  trackProgress<BudgetGatedJobStatus, BudgetJobProgress>(WorkflowType.budgetGatedJob, initial, { memberId });

export class BudgetJobRun {
  readonly input: ParsedBudgetGatedJobInput;
  readonly memberId: string;
  readonly gate: PreparedGate | undefined;
  readonly workflowId: string;
  readonly runId: string;
  // Keyed by the chain of runs (the first run's id survives a reset, a retry and continue-as-new): a reset or
  // retried run asks for the reservation it already holds; a new job reusing the workflow id gets its own.
  readonly reservationId: string;
  readonly progress: ReturnType<typeof progressOf>;
  readonly wait: ParsedBudgetWaitOptions | undefined;
  recheckAsked = false;
  mayHold = true;

  constructor(readonly rawInput: BudgetGatedJobInput) {
    const input = parseInput(BudgetGatedJobInput, rawInput, WorkflowType.budgetGatedJob);
    const { memberId, onInsufficient } = input;
    this.input = input;
    this.memberId = memberId;
    // A bad gate fails the run as InvalidInput before anything is shown or reserved.
    this.gate = prepareGate(input);
    const { workflowId, runId, firstExecutionRunId } = workflowInfo();
    this.workflowId = workflowId;
    this.runId = runId;
    const reservationId = (this.reservationId = `${workflowId}@${firstExecutionRunId}`);
    this.progress = progressOf({ status: 'PRICING', memberId, onInsufficient, reservationId, checks: 0 }, memberId);
    this.wait = onInsufficient === 'wait' ? (input.wait ?? DEFAULT_BUDGET_WAIT) : undefined;
  }

  askRecheck(): void {
    this.recheckAsked = true;
  }

  takeRecheck(): boolean {
    const asked = this.recheckAsked;
    this.recheckAsked = false;
    return asked;
  }

  get needsPricing(): boolean {
    return this.input.cost === undefined || this.gate !== undefined;
  }

  priceRequest() {
    const { input, gate } = this;
    return {
      job: input.cost === undefined ? jobQuantities(input.job) : undefined,
      gate: gate ? { images: imagesIn(gate.request.state) } : undefined,
    };
  }

  // A priced job reserves what it can be charged at most; a `cost` given in the input is taken as that already.
  costed(priced: PriceBudgetJobResult): JobCost {
    const { input } = this;
    const bound = input.cost === undefined ? chargesAtMost(input.job) : { times: 1 };
    const cost = input.cost ?? priced.cost! * bound.times;
    const costBreakdown =
      bound.times > 1 ? `(${priced.costBreakdown}) × ${bound.times} (${bound.why})` : priced.costBreakdown;
    const reserved = cost + priced.gateCost;
    upsertSearchAttributes([{ key: SearchAttributes.costEstimate, value: cost }]);
    this.progress.update({ cost, gateCost: priced.gateCost });
    return { cost, costBreakdown, gateCost: priced.gateCost, reserved };
  }

  reservationRequest(cost: number): ReserveBudgetRequest {
    return { reservationId: this.reservationId, cost, holderWorkflowId: this.workflowId, holderRunId: this.runId };
  }

  waitingFrom(first: ReserveBudgetResult, deadlineAt: number): void {
    this.progress.update({
      status: 'WAITING_FOR_BUDGET',
      checks: 1,
      lastRefusal: { checkedCost: first.checkedCost, outstanding: first.outstanding, at: isoTime(first.checkedAt) },
      waitingSince: isoTime(first.checkedAt),
      waitDeadline: isoTime(deadlineAt),
    });
  }

  decided({ cost, costBreakdown, gateCost, reserved }: JobCost, ledger: LedgerAdmission): BudgetAdmission {
    const { answer, firstCheckedAt } = ledger;
    this.mayHold = ledger.mayHold;
    const admission: BudgetAdmission = {
      decision: answer.admitted ? 'admitted' : 'refused',
      reservationId: this.reservationId,
      ledgerWorkflowId: budgetLedgerWorkflowId(this.memberId),
      cost,
      costSource: this.input.cost === undefined ? 'priceTable' : 'input',
      costBreakdown,
      gateCost,
      reserved: answer.admitted ? reserved : 0,
      reservedUsd: usdText(answer.admitted ? reserved : 0),
      outstandingAtCheck: answer.outstanding,
      checkedCost: answer.checkedCost,
      checks: ledger.checks,
      firstCheckedAt: isoTime(firstCheckedAt),
      decidedAt: isoTime(answer.checkedAt),
      waitedSeconds:
        firstCheckedAt !== undefined && answer.checkedAt !== undefined ? (answer.checkedAt - firstCheckedAt) / 1000 : 0,
    };
    this.progress.update({ checks: ledger.checks });
    return admission;
  }
}
