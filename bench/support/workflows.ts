// The SDK's floor: a workflow that does nothing but wait on one timer, bundled with every workflow of
// the service (./worker-main.ts), so the floor is measured in the same worker, with the same bundle,
// module graph and settings as the workflows it is compared to.
import { sleep } from '@temporalio/workflow';

export * from '../../src/operations/workflows';

export async function sdkFloor(ms: number): Promise<void> {
  await sleep(ms);
}
