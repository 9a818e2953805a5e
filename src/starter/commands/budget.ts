// `budget …`: an operator's view of a member's ledger, its re-check after a top-up, and a release by hand.
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Command } from 'commander';
import {
  budgetJobProgressQuery,
  budgetLedgerStateQuery,
  budgetLedgerWorkflowId,
  recheckBudgetSignal,
  releaseBudgetUpdate,
  WorkflowType,
} from '@platform-ops/client';
import { formatAmount } from '../../platform/money';
import {
  CliError,
  ExitCode,
  isClosedWorkflow,
  orCliError,
  plural,
  toCliError,
  withStarter,
  type Out,
} from '../../cli/command';

const onLedger = <T>(promise: Promise<T>, memberId: string): Promise<T> =>
  promise.catch((err: unknown) => {
    if (err instanceof WorkflowNotFoundError && !isClosedWorkflow(err)) {
      throw new CliError(
        `Member ${memberId} has no ledger yet: no budget-gated job has asked for its budget.`,
        ExitCode.NotFound,
      );
    }
    throw toCliError(err, budgetLedgerWorkflowId(memberId));
  });

const ledger = (client: Client, memberId: string) => client.workflow.getHandle(budgetLedgerWorkflowId(memberId));

export function addBudgetCommands(program: Command, out: Out): void {
  const budget = program.command('budget').description("a member's budget ledger: show, recheck, release");
  budget
    .command('show')
    .argument('<memberId>')
    .description('what the ledger holds: outstanding, each reservation and its holder, waiting jobs, totals')
    .action((memberId: string) =>
      withStarter(async ({ client }) => {
        const state = await onLedger(ledger(client, memberId).query(budgetLedgerStateQuery), memberId);
        const n = state.reservations.length;
        out(`Budget ledger of member ${memberId} (workflow ${budgetLedgerWorkflowId(memberId)})`);
        out(`  outstanding: ${formatAmount(state.outstanding)} held by ${plural(n, 'reservation')}`);
        for (const r of state.reservations) {
          const since = r.admittedAt === undefined ? '' : `  since ${new Date(r.admittedAt).toISOString()}`;
          out(`    ${r.reservationId}  holder ${r.holderWorkflowId}  cost ${formatAmount(r.cost)}${since}`);
        }
        out(`  waiting for budget: ${state.waiting.length === 0 ? 'none' : plural(state.waiting.length, 'job')}`);
        for (const workflowId of state.waiting) out(`    ${workflowId}`);
        const t = state.totals;
        out(`  totals: ${t.admitted} admitted, ${t.refused} refused, ${t.released} released, ${t.reclaimed} reclaimed`);
      }),
    );
  budget
    .command('recheck')
    .argument('[memberId]', "the member: every job waiting for the member's budget re-checks")
    .option('--workflow <id>', 'instead: this one budgetGatedJob re-checks')
    .description('have waiting jobs re-check the budget now (after a top-up)')
    .action((memberId: string | undefined, opts: { workflow?: string }) => {
      if ((memberId === undefined) === (opts.workflow === undefined)) {
        throw new CliError('budget recheck takes exactly one of <memberId> and --workflow <id>.', ExitCode.Usage);
      }
      return withStarter(({ client }) =>
        opts.workflow !== undefined ? recheckJob(client, opts.workflow, out) : recheckMember(client, memberId!, out),
      );
    });
  budget
    .command('release')
    .argument('<memberId>')
    .argument('<reservationId>', 'as `budget show` lists it')
    .option('--reason <text>', 'why, for the ledger')
    .description('give a reservation back to the ledger (when its job cannot)')
    .action((memberId: string, reservationId: string, opts: { reason?: string }) =>
      withStarter(async ({ client }) => {
        const release = ledger(client, memberId).executeUpdate(releaseBudgetUpdate, {
          args: [{ reservationId, reason: opts.reason ?? 'released by an operator' }],
        });
        const answer = await onLedger(release, memberId);
        out(
          answer.released
            ? `Released reservation ${reservationId} of member ${memberId}: ${formatAmount(answer.cost ?? 0)} freed, ` +
                'and the waiting jobs were told to re-check.'
            : `Member ${memberId}'s ledger holds no reservation ${reservationId}: nothing was freed.`,
        );
      }),
    );
}

/** The count is as of just before the signal. */
async function recheckMember(client: Client, memberId: string, out: Out): Promise<void> {
  const { waiting } = await onLedger(ledger(client, memberId).query(budgetLedgerStateQuery), memberId);
  await onLedger(ledger(client, memberId).signal(recheckBudgetSignal), memberId);
  out(
    waiting.length === 0
      ? `Asked member ${memberId}'s ledger to have its waiting jobs re-check: no job was waiting.`
      : `Asked member ${memberId}'s ledger to have its waiting jobs re-check: ${plural(waiting.length, 'job')} ` +
          `${waiting.length === 1 ? 'was' : 'were'} waiting (${waiting.join(', ')}).`,
  );
}

async function recheckJob(client: Client, workflowId: string, out: Out): Promise<void> {
  const handle = client.workflow.getHandle(workflowId);
  const d = await orCliError(handle.describe(), workflowId);
  if (d.type !== WorkflowType.budgetGatedJob) {
    throw new CliError(
      `--workflow ${workflowId} is a ${d.type}, not a budgetGatedJob: only budget-gated jobs re-check their budget.`,
      ExitCode.Usage,
    );
  }
  await orCliError(handle.signal(recheckBudgetSignal), workflowId);
  const progress = await handle.query(budgetJobProgressQuery).catch(() => undefined);
  out(
    `Asked workflow ${workflowId} to re-check its budget now` +
      (progress ? ` (it was ${progress.status}, ${plural(progress.checks, 'check')} so far).` : '.'),
  );
}
