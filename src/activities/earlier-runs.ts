// A paid call made again by a run that a Reset started. A reset copies an earlier run's history up to
// a point and runs the workflow on from there, so the paid calls the earlier run made after that
// point are not in the new run's history, and the platform may have accepted them (docs/retries.md).
// The workflow marks each paid call its reset run makes (`afterReset`); the call then reads the runs
// it was reset from, in the workflow's history through the Temporal client, and finds there the same
// call: the n-th call of that activity type, since the code makes the same calls in the same order
// while it gets the same answers. An earlier call still in flight when the run was reset answers to
// nobody (its run is closed), so every paid call completes itself and, when its run is gone, reports
// its answer to the workflow's current run in a signal, where the reset run's call finds it.
import { CompleteAsyncError, log, type Context } from '@temporalio/activity';
import { ActivityNotFoundError, type Client } from '@temporalio/client';
import { decodeArrayFromPayloads, decodeFailure } from '@temporalio/common/lib/internal-non-workflow';
import type { temporal } from '@temporalio/proto';
import { FailureType, markedSending, type Resumed, type SendingMark } from '@platform-ops/client';

/** The signal's name: the workflows need no handler, the reset run's call reads it in the history. */
export const PAID_CALL_ANSWERED = 'paidCallAnswered';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** Set by the workflow on a paid call that a run started by a reset makes. */
export interface AfterReset {
  afterReset?: boolean;
}

/** The signal a paid call's attempt sends when its run was closed (reset) before its answer. */
export interface PaidCallAnswer {
  runId: string;
  activityId: string;
  result: unknown;
}

/** The same paid call in an earlier run, and what became of it. */
export interface EarlierPaidCall<I, R> {
  /** The run that made it. */
  runId: string;
  /** What it was asked. */
  input: I;
  /**
   * `answered`: it returned `result` (in that run's history, or reported late); `failed`: it ended
   * with `failure` and no answer; `unanswered`: no answer came back while an attempt could still send.
   */
  outcome: 'answered' | 'failed' | 'unanswered';
  result?: R;
  failure?: temporal.api.failure.v1.IFailure;
  /** How many calls of its type that run made after it: a failed call with later ones must be answered alike. */
  laterCalls: number;
}

/** What a call that took an earlier run's answer reports (in its result, and the workflow's). */
export const resumedFrom = (ctx: Context, earlier: { runId: string }, found: string): Resumed => ({
  runId: earlier.runId,
  call: ctx.info.activityType,
  found,
});

/** Gap between two looks for a late answer while an earlier call is still in flight. */
const LOOK_EVERY_MS = 2_000;
/** Events read per page when looking for a late answer, newest first. */
const NEWEST_PAGE = 50;
/** PendingActivityState SCHEDULED: no attempt has started. */
const PENDING_SCHEDULED: temporal.api.enums.v1.PendingActivityState = 1;
/** After its attempt timed out, how long an earlier call's late answer may take to arrive. */
const REPORT_MARGIN_MS = 15_000;

/** The values in a history's payloads (a failure's details, a heartbeat's), decoded as the client decodes (src/codec). */
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

/** One call of an activity type in a history: its scheduled event and, once it ended, its closing event. */
interface Call {
  scheduled: HistoryEvent;
  closed?: HistoryEvent;
}

function closingAttrs(e: HistoryEvent) {
  return (
    e.activityTaskCompletedEventAttributes ??
    e.activityTaskFailedEventAttributes ??
    e.activityTaskTimedOutEventAttributes ??
    e.activityTaskCanceledEventAttributes
  );
}

/**
 * The calls of one activity type that may have sent, in the order they were scheduled. A call that ended
 * without ever starting (it timed out or was cancelled while waiting in its queue: a paced submit moved up a
 * priority class, say), or a reset run's look-up that found nothing, sent nothing, and a run makes such calls
 * as its own queue and resets decide, so they are left out on both sides: the n-th call that may have sent in
 * one run is the n-th in the other.
 */
function callsOf(events: HistoryEvent[], type: string): Call[] {
  const closings = new Map<string, HistoryEvent>();
  for (const e of events) {
    const attrs = closingAttrs(e);
    if (attrs) closings.set(String(attrs.scheduledEventId), e);
  }
  return events
    .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === type)
    .map((scheduled) => ({ scheduled, closed: closings.get(String(scheduled.eventId)) }))
    .filter(({ closed }) => !closed || (Number(closingAttrs(closed)?.startedEventId ?? 0) > 0 && !lookUpOnly(closed)));
}

/** A reset run's look-up that found nothing to take (NothingEarlier): it sent nothing, by its own word. */
function lookUpOnly(closed: HistoryEvent): boolean {
  return closed.activityTaskFailedEventAttributes?.failure?.applicationFailureInfo?.type === FailureType.NothingEarlier;
}

/**
 * The call of this activity's type that the runs this run was reset from made in this one's place
 * (the n-th of its type that may have sent, as this is), newest run first, or undefined when none made
 * it. A call in flight when its run was reset is waited for until its answer arrives or no attempt of it
 * can still send (its start-to-close timeout after its run closed).
 */
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
    // Never begun when its run closed (still waiting for a worker: a paced submit in its quota's queue), or,
    // for a call that marks its sending, begun without the mark: nothing was sent, and nothing can be (the
    // closed run's task is never handed out, and the server refuses a mark for it), so this run makes the call.
    if (await neverSent(temporal, workflowId, baseRunId, attrs.activityId ?? '', opts)) return undefined;
    // In flight when its run closed: its attempt answers, if at all, in a signal to the current run.
    const closedAt = ms(events[events.length - 1]?.eventTime);
    const settledAt = closedAt + ms(attrs.startToCloseTimeout) + REPORT_MARGIN_MS;
    const late = await lateAnswer(temporal, ctx, own, baseRunId, attrs.activityId ?? '', settledAt);
    return late ? { ...found, outcome: 'answered', result: late.result as R } : { ...found, outcome: 'unanswered' };
  }
  return undefined;
}

async function answerIn(
  temporal: Client,
  events: HistoryEvent[],
  runId: string,
  activityId: string,
): Promise<PaidCallAnswer | undefined> {
  for (const e of events) {
    const signal = e.workflowExecutionSignaledEventAttributes;
    if (signal?.signalName !== PAID_CALL_ANSWERED) continue;
    const answer = (await decodeFirst(temporal, signal.input)) as PaidCallAnswer | undefined;
    if (answer?.runId === runId && answer.activityId === activityId) return answer;
  }
  return undefined;
}

/**
 * The answer an earlier run's call reports to this run in a signal, waited for until `settledAt`. Each
 * look reads this run's history newest first, only as far back as the last look reached, so a look costs
 * what arrived since the one before, however long the history is.
 */
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

/**
 * Whether the closed run's activity `activityId` never sent: its first attempt was still waiting to start,
 * or, `marksSending`, its attempt holds no sending mark (markSending). A closed run keeps its pending
 * activities' state and last heartbeat, so the server can tell.
 */
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

/**
 * After a reset, what the earlier run's same call made: from its answer, or, when its answer was lost,
 * found on the platform by `lookUp` with the input that call was given. Undefined when no earlier run
 * made the call or nothing of it is found: this run makes the call itself.
 */
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

/** How long the server may take to record the mark; past it, nothing is sent. */
const MARK_TIMEOUT_MS = 10_000;

/**
 * Records, and waits until the server holds, that this attempt is about to send its paid request. A timed-out
 * attempt without the mark never sent anything: the server may record an attempt as started that no worker
 * ever received (a task handed out while the server was overloaded, its answer to the worker lost), and it
 * then times out like a lost worker. The server refuses the mark once the attempt timed out or its run
 * closed, so an attempt that is late never sends. Throws when the mark was not recorded: nothing was sent.
 */
export async function markSending(temporal: Client, ctx: Context): Promise<void> {
  const mark: SendingMark = { sendingAt: Date.now() };
  await temporal.connection.withDeadline(Date.now() + MARK_TIMEOUT_MS, () =>
    temporal.activity.heartbeat(ctx.info.taskToken, mark),
  );
}

/**
 * Ends a paid call's attempt with its answer. It completes itself through the client, so that when
 * its run was closed by a reset meanwhile (the server no longer knows the activity) it can report the
 * answer to the workflow's current run instead, where the reset run's same call finds it. When the
 * client cannot reach the server, the answer is returned, and the worker delivers it as usual.
 */
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
