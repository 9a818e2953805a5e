import type { VersioningBehavior } from '@temporalio/common';
import { setWorkflowOptions, workflowInfo } from '@temporalio/workflow';

// Only a versioned worker's runs send a behaviour: an unversioned one (the tests') may not. The behaviour is also a
// property of the options getter, so a test can read it.
export function setVersioningBehavior(
  versioningBehavior: VersioningBehavior,
  workflow: (input: never) => Promise<unknown>,
): void {
  const options = () => (workflowInfo().currentDeploymentVersion?.deploymentName ? { versioningBehavior } : {});
  setWorkflowOptions(Object.assign(options, { versioningBehavior }), workflow);
}
