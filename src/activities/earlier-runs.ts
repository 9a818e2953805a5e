// A paid call made again by a run that a Reset started (docs/retries.md): it finds the same call, the n-th of
// its activity type, in the runs it was reset from. A call in flight when its run was reset reports its answer
// to the workflow's current run in a signal, where the reset run's call finds it.
import { CompleteAsyncError, log, type Context } from '@temporalio/activity';
import { ActivityNotFoundError, type Client } from '@temporalio/client';
import { decodeArrayFromPayloads, decodeFailure } from '@temporalio/common/lib/internal-non-workflow';
import type { temporal } from '@temporalio/proto';
import { FailureType, markedSending, type Resumed, type SendingMark } from '@platform-ops/client';

/** The workflows need no handler: the reset run's call reads the signal in the history. */
const PAID_CALL_ANSWERED = 'paidCallAnswered';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

export interface AfterReset {
  afterReset?: boolean;
}

interface PaidCallAnswer {
  runId: string;
  activityId: string;
  result: unknown;
}

export interface EarlierPaidCall<I, R> {
  runId: string;
  input: I;
  /** `unanswered`: no answer came back while an attempt could still send. */
  outcome: 'answered' | 'failed' | 'unanswered';
  result?: R;
  failure?: temporal.api.failure.v1.IFailure;
  /** How many calls of its type that run made after it: a failed call with later ones must be answered alike. */
  laterCalls: number;
}

export const resumedFrom = (ctx: Context, earlier: { runId: string }, found: string): Resumed => ({
  runId: earlier.runId,
  call: ctx.info.activityType,
  found,
});

const LOOK_EVERY_MS = 2_000;
const NEWEST_PAGE = 50;
const PENDING_SCHEDULED: temporal.api.enums.v1.PendingActivityState = 1;
/** After its attempt timed out, how long an earlier call's late answer may take to arrive. */
const REPORT_MARGIN_MS = 15_000;

export const decodePayloads = (
  temporal: Client,
  payloads?: temporal.api.common.v1.IPayloads | null,
): Promise<unknown[]> => decodeArrayFromPayloads(temporal.options.loadedDataConverter, payloads?.payloads);

const decodeFirst = async (temporal: Client, payloads?: temporal.api.common.v1.IPayloads | null): Promise<unknown> =>
  (await decodePayloads(temporal, payloads))[0];

/** A failure as stored, with its details decoded and its message back where the codec put it (encoded attributes). */
async function readableFailure(
  temporal: Client,
  failure: temporal.api.failure.v1.IFailure,
): Promise<temporal.api.failure.v1.IFailure> {
  const { payloadCodecs, payloadConverter } = temporal.options.loadedDataConverter;
  const decoded = await decodeFailure(payloadCodecs, failure);
  const attributes = decoded.encodedAttributes
    ? payloadConverter.fromPayload<{ message?: unknown } | undefined>(decoded.encodedAttributes)
    : undefined;
  return typeof attributes?.message === 'string' ? { ...decoded, message: attributes.message } : decoded;
}

const ms = (t?: { seconds?: unknown; nanos?: number | null } | null): number =>
  t ? Number(t.seconds ?? 0) * 1000 + Math.floor((t.nanos ?? 0) / 1e6) : 0;

async function historyOf(temporal: Client, workflowId: string, runId: string): Promise<HistoryEvent[]> {
  return (await temporal.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? [];
}

/** Runs this run was reset from, newest first: each reset leaves a failed workflow task naming its base. */
function baseRunIds(events: HistoryEvent[]): string[] {
  const bases = events.flatMap((e) => e.workflowTaskFailedEventAttributes?.baseRunId || []);
  return [...new Set(bases.reverse())];
}

function closingAttrs(e: HistoryEvent) {
  return (
    e.activityTaskCompletedEventAttributes ??
    e.activityTaskFailedEventAttributes ??
    e.activityTaskTimedOutEventAttributes ??
    e.activityTaskCanceledEventAttributes
  );
}

/** The calls of a type that may have sent: the n-th in one run is the n-th in the other. */
function callsOf(events: HistoryEvent[], type: string) {
  const closings = new Map<string, HistoryEvent>();
  for (const e of events) {
    const attrs = closingAttrs(e);
    if (attrs) closings.set(String(attrs.scheduledEventId), e);
  }
  return events
    .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === type)
    .map((scheduled) => ({ scheduled, closed: closings.get(String(scheduled.eventId)) }))
    .filter(
      ({ closed }) =>
        !closed ||
        (Number(closingAttrs(closed)?.startedEventId ?? 0) > 0 &&
          closed.activityTaskFailedEventAttributes?.failure?.applicationFailureInfo?.type !==
            FailureType.NothingEarlier),
    );
}

/** The call the runs this run was reset from made in its place; one in flight is waited for until it settles. */
export async function earlierPaidCall<I, R>(
  temporal: Client,
  ctx: Context,
  opts: { marksSending?: boolean } = {},
): Promise<EarlierPaidCall<I, R> | undefined> {
  const { workflowExecution, activityId, activityType } = ctx.info;
  if (!workflowExecution) return undefined;
  const { workflowId, runId } = workflowExecution;
  const own = await historyOf(temporal, workflowId, runId);
  const nth = callsOf(own, activityType).findIndex(
    (c) => c.scheduled.activityTaskScheduledEventAttributes?.activityId === activityId,
  );
  if (nth < 0) return undefined;
  for (const baseRunId of baseRunIds(own)) {
    const events = await historyOf(temporal, workflowId, baseRunId);
    const calls = callsOf(events, activityType);
    const call = calls[nth];
    if (!call) continue;
    const attrs = call.scheduled.activityTaskScheduledEventAttributes!;
    const input = (await decodeFirst(temporal, attrs.input)) as I;
    const found = { runId: baseRunId, input, laterCalls: calls.length - nth - 1 };
    const { closed } = call;
    if (closed?.activityTaskCompletedEventAttributes) {
      const result = (await decodeFirst(temporal, closed.activityTaskCompletedEventAttributes.result)) as R;
      return { ...found, outcome: 'answered', result };
    }
    if (closed) {
      const failure =
        closed.activityTaskFailedEventAttributes?.failure ?? closed.activityTaskTimedOutEventAttributes?.failure;
      return { ...found, outcome: 'failed', failure: failure ? await readableFailure(temporal, failure) : undefined };
    }
    // Never begun when its run closed, or begun without its sending mark: nothing was sent, and nothing can be.
    if (await neverSent(temporal, workflowId, baseRunId, attrs.activityId ?? '', opts)) return undefined;
    // In flight when its run closed: its attempt answers, if at all, in a signal to the current run.
    const closedAt = ms(events[events.length - 1]?.eventTime);
    const settledAt = closedAt + ms(attrs.startToCloseTimeout) + REPORT_MARGIN_MS;
    const late = await lateAnswer(temporal, ctx, own, baseRunId, attrs.activityId ?? '', settledAt);
    return late ? { ...found, outcome: 'answered', result: late.result as R } : { ...found, outcome: 'unanswered' };
  }
  return undefined;
}

async function answerIn(temporal: Client, events: HistoryEvent[], runId: string, activityId: string) {
  for (const e of events) {
    const signal = e.workflowExecutionSignaledEventAttributes;
    if (signal?.signalName !== PAID_CALL_ANSWERED) continue;
    const answer = (await decodeFirst(temporal, signal.input)) as PaidCallAnswer | undefined;
    if (answer?.runId === runId && answer.activityId === activityId) return answer;
  }
  return undefined;
}

/** The answer an earlier run's call signals to this run, waited for until `settledAt`; a look reads only new events. */
async function lateAnswer(
  temporal: Client,
  ctx: Context,
  own: HistoryEvent[],
  runId: string,
  activityId: string,
  settledAt: number,
): Promise<PaidCallAnswer | undefined> {
  const { workflowId, runId: ownRunId } = ctx.info.workflowExecution!;
  const found = await answerIn(temporal, own, runId, activityId);
  if (found) return found;
  let seen = Number(own[own.length - 1]?.eventId ?? 0);
  for (;;) {
    const left = settledAt - Date.now();
    if (left <= 0) return undefined;
    ctx.heartbeat();
    await ctx.sleep(Math.min(LOOK_EVERY_MS, left));
    let newest = seen;
    let nextPageToken: Uint8Array | undefined;
    do {
      const page = await temporal.workflowService.getWorkflowExecutionHistoryReverse({
        namespace: temporal.options.namespace,
        execution: { workflowId, runId: ownRunId },
        maximumPageSize: NEWEST_PAGE,
        nextPageToken,
      });
      const events = (page.history?.events ?? []).filter((e) => Number(e.eventId) > seen);
      newest = Math.max(newest, ...events.map((e) => Number(e.eventId)));
      const answer = await answerIn(temporal, events, runId, activityId);
      if (answer) return answer;
      // A page that reached what the last look saw ends this look.
      const reachedSeen = events.length < (page.history?.events?.length ?? 0);
      nextPageToken = reachedSeen || !page.nextPageToken?.length ? undefined : page.nextPageToken;
    } while (nextPageToken);
    seen = newest;
  }
}

/** Whether the closed run's activity never sent: its first attempt never started, or holds no sending mark. */
async function neverSent(
  temporal: Client,
  workflowId: string,
  runId: string,
  activityId: string,
  { marksSending = false }: { marksSending?: boolean },
): Promise<boolean> {
  const { raw } = await temporal.workflow.getHandle(workflowId, runId).describe();
  const pending = raw.pendingActivities?.find((a) => a.activityId === activityId);
  if (!pending) return false;
  if (pending.state === PENDING_SCHEDULED && (pending.attempt ?? 1) <= 1) return true;
  if (!marksSending || (pending.attempt ?? 1) > 1) return false;
  return !markedSending(await decodeFirst(temporal, pending.heartbeatDetails));
}

/** After a reset, what the earlier run's same call made: from its answer, or found by `lookUp` when it was lost. */
export async function madeByEarlierRun<I, R, M>(
  temporal: Client,
  ctx: Context,
  made: { fromAnswer(result: R): M; lookUp(input: I): Promise<M | undefined> },
): Promise<{ earlier: EarlierPaidCall<I, R>; made: M } | undefined> {
  const earlier = await earlierPaidCall<I, R>(temporal, ctx);
  if (earlier?.outcome === 'answered') return { earlier, made: made.fromAnswer(earlier.result!) };
  if (earlier?.outcome !== 'unanswered') return undefined;
  const found = await made.lookUp(earlier.input);
  return found === undefined ? undefined : { earlier, made: found };
}

const MARK_TIMEOUT_MS = 10_000;

/**
 * Records, and waits until the server holds, that this attempt is about to send: a timed-out attempt without the
 * mark never sent, and the server refuses the mark once the attempt timed out or its run closed.
 */
export async function markSending(temporal: Client, ctx: Context): Promise<void> {
  const mark: SendingMark = { sendingAt: Date.now() };
  await temporal.connection.withDeadline(Date.now() + MARK_TIMEOUT_MS, () =>
    temporal.activity.heartbeat(ctx.info.taskToken, mark),
  );
}

/** Completes a paid call through the client, so that when a reset closed its run the answer goes to the current one. */
export async function answerPaidCall<R>(temporal: Client, ctx: Context, result: R): Promise<R> {
  const { taskToken, workflowExecution, activityId } = ctx.info;
  if (!workflowExecution) return result;
  try {
    await temporal.activity.complete(taskToken, result);
  } catch (err) {
    if (!(err instanceof ActivityNotFoundError)) return result;
    const answer: PaidCallAnswer = { runId: workflowExecution.runId, activityId, result };
    const { workflowId } = workflowExecution;
    await temporal.workflow
      .getHandle(workflowId)
      .signal(PAID_CALL_ANSWERED, answer)
      .catch((e: unknown) => {
        // Paid for, and no run holds the answer: someone has to decide whether it is wanted.
        log.warn(
          'A paid call answered after its workflow closed, so no run holds what it bought: if the run was closed ' +
            'by mistake, follow the task with `npm run starter -- attach task|batch <id>` (docs/starter.md)',
          { workflowId, activityId, result: JSON.stringify(result).slice(0, 300), error: String(e) },
        );
      });
  }
  throw new CompleteAsyncError();
}
