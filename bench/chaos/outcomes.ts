// Each started workflow's end as the server tells it: its status, start and close times, and for a
// failure the type that ended it (the first application failure type among the error's causes: a
// budget-gated job that failed because its child did names the child's reason).
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { ApplicationFailure, TemporalFailure, TimeoutFailure } from '@temporalio/common';
import { SearchAttributes } from '@platform-ops/client';
import { mapBounded } from '../../src/shared/lanes';
import type { Outcome } from './tally';

export interface Started {
  workflowId: string;
  type: string;
  wave: string;
  /** Real epoch ms the start was sent; used when the server has no record (the start failed). */
  sentAt: number;
  startError?: string;
}

/** The first typed application failure in the cause chain, else the kind of failure that ended it. */
export function failureTypeOf(err: unknown): string {
  let kind: string | undefined;
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    if (e instanceof ApplicationFailure && e.type) return e.type;
    if (e instanceof TimeoutFailure) kind ??= `Timeout(${e.timeoutType})`;
    else if (e instanceof TemporalFailure) kind ??= e.name;
  }
  return kind ?? (err instanceof Error ? err.name : String(err));
}

export function gatherOutcomes(client: Client, started: readonly Started[]): Promise<Outcome[]> {
  return mapBounded(started, 16, async (s): Promise<Outcome> => {
    if (s.startError) return { workflowId: s.workflowId, type: s.type, wave: s.wave, startedAt: s.sentAt };
    const handle = client.workflow.getHandle(s.workflowId);
    // A run started through another (a Nexus caller's operation) that never came is a start refused.
    const d = await handle.describe().catch((err: unknown) => {
      if (err instanceof WorkflowNotFoundError) return undefined;
      throw err;
    });
    if (!d) return { workflowId: s.workflowId, type: s.type, wave: s.wave, startedAt: s.sentAt };
    const outcome: Outcome = {
      workflowId: s.workflowId,
      type: s.type,
      wave: s.wave,
      status: d.status.name,
      startedAt: d.startTime.getTime(),
      closedAt: d.closeTime?.getTime(),
    };
    if (d.status.name === 'RUNNING') outcome.stillAt = d.typedSearchAttributes.get(SearchAttributes.status);
    if (d.status.name === 'FAILED') outcome.failureType = await handle.result().then(() => 'none', failureTypeOf);
    return outcome;
  });
}
