// The worker's Worker Deployment version (docs/versioning.md): which build it is, and making it current.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import type { WorkerDeploymentVersion } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { findProjectRoot } from './config/settings';

export const DEPLOYMENT_NAME = 'platform-ops';
const Status = temporal.api.enums.v1.WorkerDeploymentVersionStatus;
const NOT_FOUND = 5;
const FAILED_PRECONDITION = 9;

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
    // No git or no repository (the Docker image).
  }
  return { deploymentName: DEPLOYMENT_NAME, buildId: sha.trim() ? `${version}-${sha.trim()}` : version };
}

/**
 * Makes `version` current once the server has seen its pollers, unless `always` is false and the deployment has a
 * current version already (that build waits to be made current by hand). Resolves to whether `version` is current.
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
      // The server has not seen this deployment's pollers yet.
      if ((err as { code?: number }).code !== NOT_FOUND || Date.now() > deadline) throw err;
    }
    if (Date.now() > deadline) throw new Error(`${version.buildId} was not registered within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

export interface VersionState {
  buildId: string;
  /** CURRENT, RAMPING, DRAINING (pinned runs still open), DRAINED, INACTIVE (never current) or CREATED. */
  status: string;
  createdAt?: Date;
}

/** Oldest first; none when the server has not seen its workers. */
export async function deploymentVersions(client: Client, namespace: string): Promise<VersionState[]> {
  try {
    const { workerDeploymentInfo } = await client.workflowService.describeWorkerDeployment({
      namespace,
      deploymentName: DEPLOYMENT_NAME,
    });
    const builds = (workerDeploymentInfo?.versionSummaries ?? []).map((v) => v.deploymentVersion?.buildId ?? '');
    const states = await Promise.all(builds.filter(Boolean).map((buildId) => versionState(client, namespace, buildId)));
    return states.sort((a, b) => (a.createdAt?.getTime() ?? 0) - (b.createdAt?.getTime() ?? 0));
  } catch (err) {
    if ((err as { code?: number }).code === NOT_FOUND) return [];
    throw err;
  }
}

async function versionState(client: Client, namespace: string, buildId: string): Promise<VersionState> {
  const { workerDeploymentVersionInfo: info } = await client.workflowService.describeWorkerDeploymentVersion({
    namespace,
    deploymentVersion: { deploymentName: DEPLOYMENT_NAME, buildId },
  });
  const seconds = info?.createTime?.seconds;
  return {
    buildId,
    status: Status[info?.status ?? 0].replace('WORKER_DEPLOYMENT_VERSION_STATUS_', ''),
    createdAt: seconds == null ? undefined : new Date(Number(seconds) * 1000),
  };
}

/** Makes `buildId` current now, whatever was; returns the build that was current before. */
export async function setCurrentVersion(client: Client, namespace: string, buildId: string, identity: string) {
  const { previousDeploymentVersion } = await client.workflowService.setWorkerDeploymentCurrentVersion({
    namespace,
    deploymentName: DEPLOYMENT_NAME,
    buildId,
    identity,
  });
  return previousDeploymentVersion?.buildId ?? undefined;
}

/** A build that cannot be retired while new runs are routed to it. */
export class VersionInUse extends Error {}

/**
 * Retires `buildId` once it is drained and its workers have stopped polling, waiting until `waitMs` is over; refuses
 * a current or ramping build at once. `say` hears each new reason it waits.
 */
export async function retireVersion(
  client: Client,
  namespace: string,
  buildId: string,
  opts: { waitMs: number; identity: string; say: (line: string) => void },
): Promise<void> {
  const deadline = Date.now() + opts.waitMs;
  let said = '';
  const wait = async (why: string) => {
    if (Date.now() > deadline) throw new Error(`${buildId} was not retired within ${opts.waitMs / 1000} s: ${why}`);
    if (why !== said) opts.say((said = why));
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  };
  for (;;) {
    const { status } = await versionState(client, namespace, buildId);
    if (status === 'CURRENT' || status === 'RAMPING') {
      throw new VersionInUse(`${buildId} is ${status.toLowerCase()}: make another build current first`);
    }
    if (status === 'DRAINING') {
      await wait(`${buildId} is draining: its pinned runs are still open`);
      continue;
    }
    try {
      await client.workflowService.deleteWorkerDeploymentVersion({
        namespace,
        deploymentVersion: { deploymentName: DEPLOYMENT_NAME, buildId },
        identity: opts.identity,
      });
      return;
    } catch (err) {
      const { code, details } = err as { code?: number; details?: string };
      if (code !== FAILED_PRECONDITION) throw err;
      // The server remembers a poller for matching.PollerHistoryTTL (deploy/dynamicconfig/cluster.yaml).
      await wait(`${buildId} is drained; waiting until its workers have stopped polling (${details ?? 'refused'})`);
    }
  }
}
