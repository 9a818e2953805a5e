// `budget …`: an operator's view of a member's budget ledger, and what an operator does to it: tell
// the waiting jobs to re-check (after a top-up), and release a reservation whose job cannot.
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { budgetJobProgressQuery } from '../../workflows/budget/contract';
import {
  budgetLedgerStateQuery,
  budgetLedgerWorkflowId,
  recheckBudgetSignal,
  releaseBudgetUpdate,
  type BudgetLedgerState,
} from '../../workflows/budgetLedger/contract';
import { WorkflowType } from '../../workflows/operations';
import { formatAmount } from '../../workflows/budget/starter';
import { withStarter } from '../connect';
import { CliError, ExitCode } from '../exit-codes';
import { isClosedWorkflow, toCliError } from '../failures';

type Out = (line: string) => void;

/** The ledger exists once a budget-gated job of the member has asked it for budget. */
const noLedger = (memberId: string) =>
  new CliError(
    `Member ${memberId} has no ledger yet: no budget-gated job has asked for its budget.`,
    ExitCode.NotFound,
  );

function ledgerError(err: unknown, memberId: string): CliError {
  if (err instanceof WorkflowNotFoundError && !isClosedWorkflow(err)) return noLedger(memberId);
  return toCliError(err, budgetLedgerWorkflowId(memberId));
}

const ledgerState = (client: Client, memberId: string): Promise<BudgetLedgerState> =>
  client.workflow
    .getHandle(budgetLedgerWorkflowId(memberId))
    .query(budgetLedgerStateQuery)
    .catch((err: unknown) => {
      throw ledgerError(err, memberId);
    });

const jobs = (n: number) => `${n} job${n === 1 ? '' : 's'}`;

export async function budgetShowCommand(memberId: string, out: Out): Promise<void> {
  await withStarter(async ({ client }) => {
    const state = await ledgerState(client, memberId);
    const n = state.reservations.length;
    out(`Budget ledger of member ${memberId} (workflow ${budgetLedgerWorkflowId(memberId)})`);
    out(`  outstanding: ${formatAmount(state.outstanding)} held by ${n} reservation${n === 1 ? '' : 's'}`);
    for (const r of state.reservations) {
      const since = r.admittedAt === undefined ? '' : `  since ${new Date(r.admittedAt).toISOString()}`;
      out(`    ${r.reservationId}  holder ${r.holderWorkflowId}  cost ${formatAmount(r.cost)}${since}`);
    }
    out(`  waiting for budget: ${state.waiting.length === 0 ? 'none' : jobs(state.waiting.length)}`);
    for (const workflowId of state.waiting) out(`    ${workflowId}`);
    const t = state.totals;
    out(`  totals: ${t.admitted} admitted, ${t.refused} refused, ${t.released} released, ${t.reclaimed} reclaimed`);
  });
}

/** To the ledger: every waiting job of the member re-checks. The count is as of just before the signal. */
export async function budgetRecheckMemberCommand(memberId: string, out: Out): Promise<void> {
  await withStarter(async ({ client }) => {
    const { waiting } = await ledgerState(client, memberId);
    await client.workflow
      .getHandle(budgetLedgerWorkflowId(memberId))
      .signal(recheckBudgetSignal)
      .catch((err: unknown) => {
        throw ledgerError(err, memberId);
      });
    out(
      waiting.length === 0
        ? `Asked member ${memberId}'s ledger to have its waiting jobs re-check: no job was waiting.`
        : `Asked member ${memberId}'s ledger to have its waiting jobs re-check: ${jobs(waiting.length)} ` +
            `${waiting.length === 1 ? 'was' : 'were'} waiting (${waiting.join(', ')}).`,
    );
  });
}

/** To one budgetGatedJob: it re-checks at once, whatever its backoff says. */
export async function budgetRecheckJobCommand(workflowId: string, out: Out): Promise<void> {
  await withStarter(async ({ client }) => {
    const handle = client.workflow.getHandle(workflowId);
    const d = await handle.describe().catch((err: unknown) => {
      throw toCliError(err, workflowId);
    });
    if (d.type !== WorkflowType.budgetGatedJob) {
      throw new CliError(
        `--workflow ${workflowId} is a ${d.type}, not a budgetGatedJob: only budget-gated jobs re-check their budget.`,
        ExitCode.Usage,
      );
    }
    await handle.signal(recheckBudgetSignal).catch((err: unknown) => {
      throw toCliError(err, workflowId);
    });
    const progress = await handle.query(budgetJobProgressQuery).catch(() => undefined);
    out(
      `Asked workflow ${workflowId} to re-check its budget now` +
        (progress
          ? ` (it was ${progress.status}, ${progress.checks} check${progress.checks === 1 ? '' : 's'} so far).`
          : '.'),
    );
  });
}

export async function budgetReleaseCommand(
  memberId: string,
  reservationId: string,
  opts: { reason?: string },
  out: Out,
): Promise<void> {
  await withStarter(async ({ client }) => {
    const answer = await client.workflow
      .getHandle(budgetLedgerWorkflowId(memberId))
      .executeUpdate(releaseBudgetUpdate, {
        args: [{ reservationId, reason: opts.reason ?? 'released by an operator' }],
      })
      .catch((err: unknown) => {
        throw ledgerError(err, memberId);
      });
    out(
      answer.released
        ? `Released reservation ${reservationId} of member ${memberId}: ${formatAmount(answer.cost ?? 0)} freed, ` +
            'and the waiting jobs were told to re-check.'
        : `Member ${memberId}'s ledger holds no reservation ${reservationId}: nothing was freed.`,
    );
  });
}
