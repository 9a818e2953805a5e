import { allHandlersFinished, condition, makeContinueAsNewFunc, setHandler, workflowInfo } from '@temporalio/workflow';
import type { z } from 'zod';
import {
  DeployEndpointRequest,
  deployEndpointUpdate,
  type EndpointView,
  endpointStateQuery,
  formatIssues,
  parseInput,
  parseOrThrow,
  RemoveEndpointRequest,
  removeEndpointUpdate,
  ScaleEndpointRequest,
  scaleEndpointUpdate,
  ServerlessEndpointInput,
  statusQuery,
  WorkflowType,
} from '@platform-ops/client';
import { EndpointRun } from './workflows-endpoint';
import { setVersioningBehavior } from '../../workflows/versioning';

/** Refused before it is accepted (nothing in the history): a bad request, or `refuse` while a change is applied. */
function admitted<S extends z.ZodType>(run: EndpointRun, schema: S, value: unknown, what: string): void {
  const request = parseOrThrow(schema, value, (issues) => new Error(`Invalid ${what}: ${formatIssues(issues)}`));
  if ((request as { whenBusy?: string }).whenBusy === 'refuse' && run.busy) {
    throw new Error(`endpoint ${run.input.name} is applying another change, and the ${what} says whenBusy: refuse`);
  }
}

export async function serverlessEndpoint(rawInput: ServerlessEndpointInput): Promise<EndpointView> {
  const input = parseInput(ServerlessEndpointInput, rawInput, WorkflowType.serverlessEndpoint);
  const run = new EndpointRun(input);

  setHandler(statusQuery, () => run.status.current);
  setHandler(endpointStateQuery, () => run.record.view);
  setHandler(
    deployEndpointUpdate,
    (req) => {
      const { config, budget, unhealthyTimeoutSeconds } = DeployEndpointRequest.parse(req);
      return run.inTurn(() => run.deploy(config, budget, unhealthyTimeoutSeconds));
    },
    {
      validator: (req) => admitted(run, DeployEndpointRequest, req, 'deployEndpoint request'),
    },
  );
  setHandler(
    scaleEndpointUpdate,
    (req) => {
      const { minWorkers, maxWorkers } = ScaleEndpointRequest.parse(req);
      return run.inTurn(() => run.scale(minWorkers, maxWorkers));
    },
    { validator: (req) => admitted(run, ScaleEndpointRequest, req, 'scaleEndpoint request') },
  );
  setHandler(removeEndpointUpdate, () => run.inTurn(() => run.remove()), {
    validator: (req) => admitted(run, RemoveEndpointRequest, req, 'removeEndpoint request'),
  });

  const longHistory = () =>
    workflowInfo().continueAsNewSuggested || workflowInfo().historyLength >= input.continueAsNewAfterEvents;
  // Between changes the run reads its endpoint now and then (state, workers, cost); with none, it only waits.
  for (;;) {
    const refreshMs = run.record.endpointId ? input.refreshSeconds * 1000 : undefined;
    const woken = await condition(() => run.busy || run.removed || longHistory(), refreshMs as number);
    if (run.busy) await condition(() => !run.busy);
    else if (run.removed || longHistory()) break;
    else if (!woken) await run.refresh();
  }
  // Changes that came in meanwhile finish first, so nothing is lost on the way over.
  await condition(() => allHandlersFinished() && !run.busy);
  if (run.removed) return run.record.view;
  return makeContinueAsNewFunc<typeof serverlessEndpoint>()({ ...input, carried: run.record.carried() });
}

setVersioningBehavior('AUTO_UPGRADE', serverlessEndpoint);
