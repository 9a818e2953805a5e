import { allHandlersFinished, condition, makeContinueAsNewFunc, setHandler, workflowInfo } from '@temporalio/workflow';
import { setVersioningBehavior } from '../../workflows/versioning';
import type { z } from 'zod';
import {
  BudgetLedgerInput,
  type BudgetLedgerState,
  budgetLedgerStateQuery,
  formatIssues,
  parseInput,
  parseOrThrow,
  recheckBudgetSignal,
  ReleaseBudgetRequest,
  releaseBudgetUpdate,
  ReserveBudgetBatch,
  reserveBudgetBatchUpdate,
  ReserveBudgetRequest,
  reserveBudgetUpdate,
  statusQuery,
  WorkflowType,
} from '@platform-ops/client';
import { BudgetLedgerRun } from './workflows-ledger';

function validated<S extends z.ZodType>(schema: S, value: unknown, what: string): void {
  parseOrThrow(schema, value, (issues) => new Error(`Invalid ${what}: ${formatIssues(issues)}`));
}

export async function budgetLedger(rawInput: BudgetLedgerInput): Promise<BudgetLedgerState> {
  const input = parseInput(BudgetLedgerInput, rawInput, WorkflowType.budgetLedger);
  const ledger = new BudgetLedgerRun(input);

  // Started before the handlers: an Update delivered with the run's start is queued by its handler the
  // moment it is registered, and the order of the commands that follow depends on it.
  void ledger.admitInOrder();
  setHandler(statusQuery, () => ledger.status.current);
  setHandler(budgetLedgerStateQuery, () => ledger.book.state());
  setHandler(reserveBudgetUpdate, (request) => ledger.admit(ReserveBudgetRequest.parse(request)), {
    validator: (request) => validated(ReserveBudgetRequest, request, 'reserveBudget request'),
  });
  setHandler(reserveBudgetBatchUpdate, (batch) => ledger.admitBatch(batch), {
    validator: (batch) => validated(ReserveBudgetBatch, batch, 'reserveBudgetBatch request'),
  });
  setHandler(releaseBudgetUpdate, (request) => Promise.resolve(ledger.release(ReleaseBudgetRequest.parse(request))), {
    validator: (request) => validated(ReleaseBudgetRequest, request, 'releaseBudget request'),
  });
  setHandler(recheckBudgetSignal, () => ledger.notifyWaiting());
  void ledger.reclaimStale();
  await condition(
    () => workflowInfo().continueAsNewSuggested || workflowInfo().historyLength >= input.continueAsNewAfterEvents,
  );
  // Let admissions, releases, signals and checks in flight finish, so nothing is lost on the way over.
  await condition(() => allHandlersFinished() && ledger.inFlight === 0);
  return makeContinueAsNewFunc<typeof budgetLedger>()({ ...input, ...ledger.book.carried() });
}

setVersioningBehavior('AUTO_UPGRADE', budgetLedger);
