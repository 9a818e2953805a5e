// Each workflow type's declared Worker Versioning behaviour, read from the workflow functions the way
// the worker reads it (src/workflows/versioning.ts).
import * as autoRenew from '../../src/operations/autoRenew/workflows';
import * as batch from '../../src/operations/batchJob/workflows';
import * as billing from '../../src/operations/billingReport/workflows';
import * as budget from '../../src/operations/budgetGatedJob/workflows';
import * as budgetLedger from '../../src/operations/budgetLedger/workflows';
import * as decision from '../../src/operations/evaluateDecision/workflows';
import * as instances from '../../src/operations/instances/workflows';
import * as media from '../../src/operations/mediaGeneration/workflows';

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
