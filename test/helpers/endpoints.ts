// What the serverlessEndpoint tests share: a config that deploys on the emulator, a deploy through update-with-start
// as the starter sends it, the emulator's view of an endpoint's billing, and an Update's refusal message.
import { WithStartWorkflowOperation, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import {
  type DeployEndpointRequest,
  deployEndpointUpdate,
  type EndpointConfigInput,
  type ServerlessEndpointInput,
  serverlessEndpointWorkflowId,
  WorkflowType,
} from '@platform-ops/client';
import type { TestEmulator } from './emulator';

export interface EmulatedEndpoint {
  id: string;
  name: string;
  state: string;
  billedWorkerSeconds: number;
  billingNow: number;
}

export const endpointConfig = (name: string, over: Partial<EndpointConfigInput> = {}): EndpointConfigInput => ({
  name,
  workerConfig: { minNum: 1, maxNum: 2, freeTimeout: 300, maxConcurrent: 1, gpuNum: 1, requestTimeout: 300 },
  ports: [{ port: 8080 }],
  policy: { type: 'queue', value: 60 },
  image: { image: 'registry.example/hello-gpu:1' },
  products: [{ id: 'gpu-l40s-48g' }],
  rootfsSize: 100,
  healthy: { path: '/health' },
  ...over,
});

export const FAST: Partial<ServerlessEndpointInput> = {
  pollSeconds: 1,
  serveTimeoutSeconds: 60,
  removeTimeoutSeconds: 60,
};

/** `name`: the run's, when a test sends a config that names another; `input`: the run's timings, if it starts. */
export function deploy(
  client: Client,
  taskQueue: string,
  request: DeployEndpointRequest,
  name = request.config.name,
  input: Partial<ServerlessEndpointInput> = FAST,
) {
  const startWorkflowOperation = new WithStartWorkflowOperation(WorkflowType.serverlessEndpoint, {
    workflowId: serverlessEndpointWorkflowId(name),
    taskQueue,
    args: [{ name, ...input }],
    workflowIdConflictPolicy: 'USE_EXISTING',
  });
  return client.workflow.executeUpdateWithStart(deployEndpointUpdate, { args: [request], startWorkflowOperation });
}

export async function emulated(emulatorOf: TestEmulator, name: string): Promise<EmulatedEndpoint[]> {
  const { endpoints } = await emulatorOf.admin<{ endpoints: EmulatedEndpoint[] }>('GET', '/endpoints');
  return endpoints.filter((e) => e.name === name);
}

export const refusal = async (p: Promise<unknown>): Promise<string> => (await failureOf(p)).message;

/** The failure an Update ended with: its innermost cause, with its type. */
export async function failureOf(p: Promise<unknown>): Promise<{ message: string; type?: string }> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WorkflowUpdateFailedError);
  let cause: unknown = err;
  while (cause instanceof Error && cause.cause instanceof Error) cause = cause.cause;
  return { message: (cause as Error).message, type: (cause as { type?: string }).type };
}

export async function waitUntil(check: () => Promise<boolean>, ms = 30_000): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) {
    if (await check()) return;
  }
  throw new Error('timed out waiting');
}
