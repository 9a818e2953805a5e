// The faults the suite applies in turn, each to a fresh wave of workflows of every type. An event (the
// worker killed, the server restarted) strikes a wave already at work; a state (an outage, a 429 storm,
// slow paid calls, cut downloads) is set first and the wave starts into it, so every workflow of the
// wave meets it. A reset wave resets half of every type at work to its first workflow task by one
// batch operation, as an operator's reset by query does, and the tally counts a paid call made twice
// as it does for every other fault. Each names the non-retryable failures it can justify: only a call that may have been
// carried out without the caller hearing back justifies giving up (AmbiguousSubmission); a refusal
// (503, 429) or a cut download justifies nothing, since trying again later is always safe.
import { setTimeout as sleep } from 'node:timers/promises';
import { temporal } from '@temporalio/proto';
import { FailureType } from '@platform-ops/client';
import { mapBounded } from '../../src/shared/lanes';
import { resetByQuery } from '../../src/starter/commands/bulk';
import { nexusRunIds } from './nexus';
import { CHAOS_TYPES } from './workload';
import type { BenchStack } from '../support/stack';
import type { WorkerProcess } from '../support/worker-process';

export interface FaultContext {
  stack: BenchStack;
  /** The worker now polling (replaced when the suite kills it). */
  worker: WorkerProcess;
  log: (msg: string) => void;
}

export interface ChaosFault {
  name: string;
  what: string;
  /** An event strikes a wave at work; a state is set before its wave starts. */
  kind: 'event' | 'state';
  justifies: readonly string[];
  /** Failures this fault causes on purpose, by type: at most that many are justified (a scripted refusal). */
  allowances?: Readonly<Record<string, number>>;
  /** Paid routes whose answer dies with a killed worker (see `FaultWindow.losesAnswersOf`). */
  losesAnswersOf?: readonly string[];
  /** Real ms the fault lasts once struck (an event: until it is healed). */
  holdMs: number;
  strike(ctx: FaultContext): Promise<void>;
  /** A state's act on its wave once the wave has started (the reset wave's resets). */
  afterWaveStarts?(ctx: FaultContext): Promise<void>;
  heal(ctx: FaultContext): Promise<void>;
}

export interface FaultDurations {
  outageS: number;
  stormS: number;
  latencyS: number;
  cutS: number;
}

const MAY_HAVE_BEEN_CARRIED_OUT = [FailureType.AmbiguousSubmission];
/** How long the killed worker stays down. */
const WORKER_DOWN_MS = 5_000;
/** Past the platform client's 30 s timeout: a paid call times out after it reached the platform. */
const PAID_LATENCY_MS = 35_000;
const STORM_RETRY_AFTER_S = 5;

const setFaults = (ctx: FaultContext, routes: Record<string, unknown>) =>
  ctx.stack.admin('PUT', '/faults', { routes }).then(() => undefined);
const clearFaults = (ctx: FaultContext) => ctx.stack.admin('DELETE', '/faults').then(() => undefined);

const stateFault = (
  name: string,
  what: string,
  holdS: number,
  routes: Record<string, unknown>,
  justifies: readonly string[] = [],
): ChaosFault => ({
  name,
  what,
  kind: 'state',
  justifies,
  holdMs: holdS * 1000,
  strike: (ctx) => setFaults(ctx, routes),
  heal: clearFaults,
});

/**
 * Resets half of every type of the wave (the even ones, the Nexus-started too) to its first workflow task as an operator does after a bad
 * deploy: one batch operation by visibility query, as `incident reset --query … --to first-task` starts it, once each
 * of them has run its first workflow task (before that there is nothing to reset to). A run that closes meanwhile
 * is left as it is.
 */
async function resetHalfOfWave(ctx: FaultContext, wave: string, perType: number): Promise<void> {
  const { client } = ctx.stack;
  const ids = [
    ...CHAOS_TYPES.flatMap((type) =>
      Array.from({ length: Math.ceil(perType / 2) }, (_, k) => `chaos-${wave}-${type}-${2 * k}`),
    ),
    ...nexusRunIds(wave, perType, true),
  ];
  const until = Date.now() + RESET_WAIT_MS;
  const begun = await mapBounded(ids, LOOKS_AT_ONCE, (workflowId) => hasBegun(ctx, workflowId, until));
  const ready = ids.filter((_, i) => begun[i] === 'begun');
  const count = (what: string) => begun.filter((b) => b === what).length;
  ctx.log(
    `resetting ${ready.length} workflows by query (${count('closed')} had closed, ${count('not begun')} had not ` +
      `begun within ${RESET_WAIT_MS / 1000} s)`,
  );
  const query = `WorkflowId IN (${ready.map((id) => `'${id}'`).join(', ')}) AND ExecutionStatus = 'Running'`;
  const batch =
    ready.length > 0
      ? await resetByQuery(client, { query, to: 'first-task', reason: 'chaos: reset half of the wave' }, ctx.log)
      : undefined;
  const reset = batch?.end?.completed ?? 0;
  ctx.log(`the batch reset ${reset} workflows, ${batch?.end?.failed ?? 0} could not be reset`);
  // A wave that reset too few tests nothing: fail the suite rather than pass it unproven.
  if (reset < ids.length / 4) throw new Error(`the reset wave reset only ${reset} of ${ids.length}`);
}

/** Whether the run is still running with its first workflow task done, waiting for that until `until`. */
async function hasBegun(
  ctx: FaultContext,
  workflowId: string,
  until: number,
): Promise<'begun' | 'closed' | 'not begun'> {
  const { client } = ctx.stack;
  for (;;) {
    const { raw } = await client.workflow.getHandle(workflowId).describe();
    const info = raw.workflowExecutionInfo;
    if (info?.status !== temporal.api.enums.v1.WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING) {
      return 'closed';
    }
    const { history } = await client.workflowService.getWorkflowExecutionHistory({
      namespace: ctx.stack.server.namespace,
      execution: { workflowId, runId: info.execution?.runId },
      maximumPageSize: 20,
    });
    if (history?.events?.some((e) => e.workflowTaskCompletedEventAttributes)) return 'begun';
    if (Date.now() >= until) return 'not begun';
    await sleep(500);
  }
}

/** How long the reset wave waits for a workflow's first workflow task to have run. */
const RESET_WAIT_MS = 60_000;
/** Runs looked at at once while waiting for the first workflow tasks. */
const LOOKS_AT_ONCE = 8;
/**
 * The reset wave's paid calls take this long (half the client's 30 s timeout), so the workflows that
 * pay are still at work, most with a paid call in flight, when the resets reach them after the wave's
 * last start; its resets begin this soon after that start.
 */
const RESET_PAID_LATENCY_MS = 15_000;
const RESET_AFTER_START_MS = 500;
const RESET_HOLD_S = 20;

export function chaosFaults(d: FaultDurations, perType: number): ChaosFault[] {
  const outage = { errorRate5xx: 1, status5xx: 503 };
  const cut = { cutRate: 1 };
  return [
    {
      name: 'worker-sigkill',
      what: `SIGKILL of the worker mid-work, a new one ${WORKER_DOWN_MS / 1000} s later`,
      kind: 'event',
      justifies: MAY_HAVE_BEEN_CARRIED_OUT,
      // An evaluation is answered in its response alone: one answered as the worker dies is bought
      // again by the retry, since nothing on the platform can give that answer back (docs/retries.md).
      losesAnswersOf: ['decisionEvaluation'],
      holdMs: WORKER_DOWN_MS,
      strike: async (ctx) => {
        const gone = new Promise<void>((resolve) => {
          const poll = setInterval(() => {
            if (ctx.worker.lost()) {
              clearInterval(poll);
              resolve();
            }
          }, 50);
        });
        process.kill(ctx.worker.pid, 'SIGKILL');
        await gone;
      },
      heal: async (ctx) => {
        ctx.worker = await ctx.stack.worker.start();
      },
    },
    {
      name: 'devserver-restart',
      what: 'the Temporal dev server stopped and started again on its SQLite file and port',
      kind: 'event',
      justifies: MAY_HAVE_BEEN_CARRIED_OUT,
      holdMs: 0,
      strike: (ctx) => ctx.stack.server.restart(),
      heal: () => Promise.resolve(),
    },
    stateFault('outage', `every route 503 for ${d.outageS} s (output files too)`, d.outageS, {
      '*': outage,
      outputFile: outage,
    }),
    stateFault('429-storm', `every route 429 with Retry-After ${STORM_RETRY_AFTER_S} s for ${d.stormS} s`, d.stormS, {
      '*': { rate429: 1, retryAfterSeconds: STORM_RETRY_AFTER_S },
    }),
    stateFault(
      'paid-latency',
      `${PAID_LATENCY_MS / 1000} s latency on every paid call for ${d.latencyS} s`,
      d.latencyS,
      { paid: { latencyMs: PAID_LATENCY_MS } },
      MAY_HAVE_BEEN_CARRIED_OUT,
    ),
    {
      // Paid calls are slowed (well within the client's timeout) so the resets land while the wave
      // is at work, many of them while a paid call is in flight: the case a reset must not pay twice.
      ...stateFault(
        'reset',
        `half of every type reset to its first workflow task while at work, paid calls taking ${RESET_PAID_LATENCY_MS / 1000} s`,
        RESET_HOLD_S,
        { paid: { latencyMs: RESET_PAID_LATENCY_MS } },
        MAY_HAVE_BEEN_CARRIED_OUT,
      ),
      afterWaveStarts: async (ctx) => {
        await sleep(RESET_AFTER_START_MS);
        await resetHalfOfWave(ctx, 'reset', perType);
      },
    },
    stateFault('cut-downloads', `output downloads cut off half-way for ${d.cutS} s`, d.cutS, {
      outputFile: cut,
      getFileContent: cut,
    }),
  ];
}
