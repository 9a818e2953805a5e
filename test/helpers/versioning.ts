// Each workflow type's declared Worker Versioning behaviour, read from the workflow functions the way
// the worker reads it (src/workflows/versioning.ts).
// The workflow bundle's entry: every operation's workflows, as the worker registers them.
import * as workflows from '../../src/operations/workflows';

type Declared = { workflowDefinitionOptions?: { versioningBehavior?: string } };

/** Workflow type → PINNED, AUTO_UPGRADE, or undefined when it declares none. */
export function versioningBehaviours(): Record<string, string | undefined> {
  return Object.fromEntries(
    Object.entries(workflows as Record<string, Declared>)
      .filter(([, fn]) => typeof fn === 'function')
      .map(([type, fn]) => [type, fn.workflowDefinitionOptions?.versioningBehavior]),
  );
}
