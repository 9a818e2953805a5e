// The cluster's namespace and the service's search attributes, registered once (idempotent: a
// second start finds them). A new server knows no namespace, unlike the dev server.
import { Connection, isGrpcServiceError } from '@temporalio/client';
import { msToTs } from '@temporalio/common';
import { ensureSearchAttributes } from '../namespace/search-attributes';

// gRPC codes: the namespace exists already; it is not in the server's namespace cache yet.
const ALREADY_EXISTS = 6;
const NOT_FOUND = 5;
/** How long closed workflows stay visible. */
const RETENTION = '3 days';
const SETTLE_TIMEOUT_MS = 60_000;

export async function setUpNamespace(address: string, namespace: string, log: (msg: string) => void): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    try {
      await connection.workflowService.registerNamespace({
        namespace,
        workflowExecutionRetentionPeriod: msToTs(RETENTION),
      });
      log(`Registered namespace ${namespace}.`);
    } catch (err) {
      if (!(isGrpcServiceError(err) && (err.code as number) === ALREADY_EXISTS)) throw err;
    }
    // A namespace just registered reaches the server's cache a moment later: until then it is "not found".
    const deadline = Date.now() + SETTLE_TIMEOUT_MS;
    for (;;) {
      try {
        await ensureSearchAttributes({ connection, namespace, address, register: true, log });
        return;
      } catch (err) {
        const notYet = isGrpcServiceError(err) && (err.code as number) === NOT_FOUND;
        if (!notYet || Date.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  } finally {
    await connection.close();
  }
}
