// The SDK's floor: a workflow that does nothing but wait on one timer, bundled with every workflow of
// the service and the Temporal peer's (../media/peer-workflows.ts) (./worker-main.ts), so the floor
// and the peer are measured with the same bundle, module graph and settings as the workflows they are
// compared to.
import { sleep } from '@temporalio/workflow';

export * from '../../src/operations/workflows';
export * from '../media/peer-workflows';

export async function sdkFloor(ms: number): Promise<void> {
  await sleep(ms);
}
