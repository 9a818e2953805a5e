// The Nexus endpoint that routes the service's operations to the worker's task queue, and the namespace callers try it
// from: what `npm start` and `npm run cluster` set up on the servers they run (docs/backends.md#temporal-applications-nexus).
import { Connection } from '@temporalio/client';
import { NEXUS_ENDPOINT } from '@platform-ops/client';
import { onceNamespaceSettles, registerNamespace } from '../devserver/temporal-server';

export const CALLERS_NAMESPACE = 'callers';

export interface NexusSetup {
  address: string;
  /** Where the endpoint sends operations: the worker's namespace and task queue. */
  namespace: string;
  taskQueue: string;
  endpoint?: string;
  callersNamespace?: string;
  log: (msg: string) => void;
}

/** Creates the endpoint, or points it at this target if it pointed elsewhere; registers the callers' namespace. */
export async function setUpNexus(opts: NexusSetup): Promise<void> {
  const name = opts.endpoint ?? NEXUS_ENDPOINT;
  const callers = opts.callersNamespace ?? CALLERS_NAMESPACE;
  const target = { worker: { namespace: opts.namespace, taskQueue: opts.taskQueue } };
  const connection = await Connection.connect({ address: opts.address });
  try {
    await registerNamespace(connection, callers, '1 day', opts.log);
    const operator = connection.operatorService;
    const { endpoints } = await operator.listNexusEndpoints({ name, pageSize: 1 });
    const existing = endpoints?.[0];
    const worker = existing?.spec?.target?.worker;
    if (!existing) {
      await operator.createNexusEndpoint({ spec: { name, target } });
      opts.log(`Created the Nexus endpoint ${name} (to ${opts.namespace}/${opts.taskQueue}).`);
    } else if (worker?.namespace !== opts.namespace || worker?.taskQueue !== opts.taskQueue) {
      await operator.updateNexusEndpoint({ id: existing.id, version: existing.version, spec: { name, target } });
      opts.log(`Pointed the Nexus endpoint ${name} at ${opts.namespace}/${opts.taskQueue}.`);
    }
    // A caller's first start fails while the new namespace is not in the server's cache yet.
    await onceNamespaceSettles(() => connection.workflowService.describeNamespace({ namespace: callers }));
  } finally {
    await connection.close();
  }
}
