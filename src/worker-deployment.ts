// The worker's Worker Deployment version (docs/versioning.md): which build it is, and making that build
// the deployment's current version, which is where new runs and AUTO_UPGRADE runs go.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import type { WorkerDeploymentVersion } from '@temporalio/common';
import { findProjectRoot } from './devserver/find-temporal-cli';

export const DEPLOYMENT_NAME = 'platform-ops';

/** WORKER_BUILD_ID, else the package version and the commit's short sha (the version alone without git). */
export function workerVersion(buildIdSetting?: string): WorkerDeploymentVersion {
  if (buildIdSetting) return { deploymentName: DEPLOYMENT_NAME, buildId: buildIdSetting };
  const root = findProjectRoot();
  const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };
  let sha = '';
  try {
    sha = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  } catch {
    // No git or no repository (the Docker image): the version alone.
  }
  return { deploymentName: DEPLOYMENT_NAME, buildId: sha.trim() ? `${version}-${sha.trim()}` : version };
}

/**
 * Makes `version` current once the server knows it (it must have seen its pollers), unless `always` is
 * false and the deployment already has a current version: a build started beside the current one
 * waits to be made current by hand. Resolves to whether `version` is current.
 */
export async function makeCurrentVersion(
  client: Client,
  namespace: string,
  version: WorkerDeploymentVersion,
  always: boolean,
  timeoutMs = 60_000,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const { workerDeploymentInfo } = await client.workflowService.describeWorkerDeployment({
        namespace,
        deploymentName: version.deploymentName,
      });
      const current = workerDeploymentInfo?.routingConfig?.currentDeploymentVersion;
      if (current?.buildId === version.buildId) return true;
      if (current?.buildId && !always) return false;
      if (workerDeploymentInfo?.versionSummaries?.some((v) => v.deploymentVersion?.buildId === version.buildId)) {
        await client.workflowService.setWorkerDeploymentCurrentVersion({
          namespace,
          deploymentName: version.deploymentName,
          buildId: version.buildId,
        });
        return true;
      }
    } catch (err) {
      // NOT_FOUND: the server has not seen this deployment's pollers yet.
      if ((err as { code?: number }).code !== 5 || Date.now() > deadline) throw err;
    }
    if (Date.now() > deadline) throw new Error(`${version.buildId} was not registered within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
