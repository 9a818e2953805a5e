// Each workflow type's declared Worker Versioning behaviour, read from the workflow functions the way
// the worker reads it (src/workflows/versioning.ts).
import * as autoRenew from '../../src/workflows/autoRenew/workflows';
import * as batch from '../../src/workflows/batch/workflows';
import * as billing from '../../src/workflows/billing/workflows';
import * as budget from '../../src/workflows/budget/workflows';
import * as budgetLedger from '../../src/workflows/budgetLedger/workflows';
import * as decision from '../../src/workflows/decision/workflows';
import * as instances from '../../src/workflows/instances/workflows';
import * as media from '../../src/workflows/media/workflows';

type Declared = { workflowDefinitionOptions?: { versioningBehavior?: string } };

/** Workflow type → PINNED, AUTO_UPGRADE, or undefined when it declares none. */
export function versioningBehaviours(): Record<string, string | undefined> {
  const modules = [autoRenew, batch, billing, budget, budgetLedger, decision, instances, media];
  return Object.fromEntries(
    modules.flatMap((m) =>
      Object.entries(m as Record<string, Declared>).map(([type, fn]) => [
        type,
        fn.workflowDefinitionOptions?.versioningBehavior,
      ]),
    ),
  );
}
