// Each workflow type's Worker Versioning behaviour (docs/versioning.md), declared beside the workflow.
import type { VersioningBehavior } from '@temporalio/common';
import { setWorkflowOptions, workflowInfo } from '@temporalio/workflow';

/**
 * Declares `workflow`'s behaviour for the runs a versioned worker starts. Only those: an unversioned
 * worker (the tests') may not send one, and a run first recorded unversioned takes the worker's
 * default. The behaviour is also a property of the options getter, so a test can read it.
 */
export function setVersioningBehavior(
  versioningBehavior: VersioningBehavior,
  workflow: (input: never) => Promise<unknown>,
): void {
  const options = () => (workflowInfo().currentDeploymentVersion?.deploymentName ? { versioningBehavior } : {});
  setWorkflowOptions(Object.assign(options, { versioningBehavior }), workflow);
}
