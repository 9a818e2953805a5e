// Serverless endpoints in the fault suite's mix. An endpoint's run is driven by Updates, not started with an input:
// each wave deploys a few endpoints as `endpoint deploy` does (update-with-start) and then removes them, the driver
// sending again what a fault cut (a restarted server, an outage). The tally counts a create paid twice per name like
// any paid call, and asks the emulator that no endpoint is left with a worker billing.
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { deployEndpoint, removeEndpointUpdate, serverlessEndpointWorkflowId, WorkflowType } from '@platform-ops/client';
import type { EndpointAdminView } from '@platform-ops/emulator';
import type { BenchStack } from '../support/stack';
import type { Started } from './outcomes';
import { isClosedWorkflow } from '../../src/cli/command';
import { sleep } from '../../src/devserver/processes';
// Endpoints are few and long-lived on a platform: a side part of the mix.
import { sidePartPerWave } from './workload';

/** How long a driver keeps sending a change a fault cut; the suite's own deadline ends it sooner. */
const DRIVE_MS = 15 * 60_000;
const RETRY_MS = 2_000;

const config = (name: string) => ({
  name,
  workerConfig: { minNum: 1, maxNum: 2, freeTimeout: 60, maxConcurrent: 1, gpuNum: 1, requestTimeout: 60 },
  ports: [{ port: 8080 }],
  policy: { type: 'queue' as const, value: 30 },
  image: { image: 'registry.example/chaos:1' },
  products: [{ id: 'gpu-l40s-48g' }],
  rootfsSize: 100,
  healthy: { path: '/health' },
});

/**
 * Sends `change` until it is answered. A deploy's refusal is an answer (the remove follows); a remove is sent again
 * until the run has ended.
 */
async function untilAnswered(change: () => Promise<unknown>, deadline: number, refusalEnds: boolean): Promise<void> {
  for (;;) {
    try {
      await change();
      return;
    } catch (err) {
      if ((refusalEnds && err instanceof WorkflowUpdateFailedError) || isClosedWorkflow(err)) return;
      if (Date.now() > deadline) return;
      await sleep(RETRY_MS);
    }
  }
}

/**
 * Starts the wave's endpoint drivers: each deploys its endpoint and removes it. Answers the runs as started; the
 * suite waits for the runs themselves, which end once removed.
 */
export function driveEndpoints(stack: BenchStack, wave: string, perType: number): Started[] {
  const started: Started[] = [];
  for (let i = 0; i < sidePartPerWave(perType); i++) {
    const name = `chaos-${wave}-ep-${i}`;
    const workflowId = serverlessEndpointWorkflowId(name);
    const deadline = Date.now() + DRIVE_MS;
    started.push({ workflowId, type: WorkflowType.serverlessEndpoint, wave, sentAt: Date.now() });
    void (async () => {
      await untilAnswered(
        async () =>
          (await deployEndpoint(stack.client, { config: config(name) }, { taskQueue: stack.taskQueue })).result(),
        deadline,
        true,
      );
      const handle = stack.client.workflow.getHandle(workflowId);
      await untilAnswered(() => handle.executeUpdate(removeEndpointUpdate, { args: [{}] }), deadline, false);
    })();
  }
  return started;
}

/** The suite's endpoints the emulator still shows with a worker billing. */
export async function endpointsLeftBilling(stack: BenchStack): Promise<string[]> {
  const { endpoints } = await stack.admin<{ endpoints: EndpointAdminView[] }>('GET', '/endpoints');
  return endpoints.filter((e) => e.billingNow > 0).map((e) => `${e.name} (${e.billingNow} billing, ${e.state})`);
}
