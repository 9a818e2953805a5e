// What the members' budget ledgers still hold once every workflow has ended: a reservation held then
// is a leak. Read by the fault suite and by the cluster suite.
import { setTimeout as sleep } from 'node:timers/promises';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { budgetLedgerStateQuery, budgetLedgerWorkflowId } from '@platform-ops/client';
import type { Reservation } from './tally';

/**
 * The reservations the suite's members' ledgers still hold (the chaos member's, whose budget-gated
 * jobs every wave has, and each wave's auto-renew member's), or null when a ledger does not answer:
 * the leak target then fails as not measured.
 */
export async function heldReservations(
  client: Client,
  members: readonly string[],
  log: (msg: string) => void,
): Promise<Reservation[] | null> {
  const held: Reservation[] = [];
  for (const member of members) {
    const reservations = await ledgerReservations(client, member, log);
    if (reservations === null) return null;
    held.push(...reservations);
  }
  return held;
}

/**
 * One member's held reservations: none when it has no ledger (it never reserved anything), null when
 * the ledger does not answer its query three times, 10 s apart (busy or stuck).
 */
async function ledgerReservations(
  client: Client,
  member: string,
  log: (msg: string) => void,
): Promise<Reservation[] | null> {
  const ledger = client.workflow.getHandle(budgetLedgerWorkflowId(member));
  for (let attempt = 1; attempt <= 3; attempt++) {
    try {
      return (await ledger.query(budgetLedgerStateQuery)).reservations;
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return [];
      log(
        `${member}'s ledger did not answer its state query (attempt ${attempt}): ${err instanceof Error ? err.message : String(err)}`,
      );
      if (attempt < 3) await sleep(10_000);
    }
  }
  return null;
}
