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
import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import type { Resumed } from '../api/contract';

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
}

/** What a call that took an earlier run's answer reports (in its result, and the workflow's). */
export const resumedFrom = (ctx: Context, earlier: { runId: string }, found: string): Resumed => ({
  runId: earlier.runId,
  call: ctx.info.activityType,
  found,
});

/** Gap between two reads of the histories while an earlier call is still in flight. */
const LOOK_EVERY_MS = 2_000;
/** PendingActivityState SCHEDULED: no attempt has started. */
const PENDING_SCHEDULED: temporal.api.enums.v1.PendingActivityState = 1;
/** After its attempt timed out, how long an earlier call's late answer may take to arrive. */
const REPORT_MARGIN_MS = 15_000;

const decode = (payloads?: temporal.api.common.v1.IPayloads | null): unknown =>
  payloads?.payloads?.[0] ? defaultPayloadConverter.fromPayload(payloads.payloads[0]) : undefined;

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

/** The scheduled events of one activity type, in order. */
const scheduledOf = (events: HistoryEvent[], type: string) =>
  events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === type);

function lateAnswer(events: HistoryEvent[], runId: string, activityId: string): PaidCallAnswer | undefined {
  for (const e of events) {
    const signal = e.workflowExecutionSignaledEventAttributes;
    if (signal?.signalName !== PAID_CALL_ANSWERED) continue;
    const answer = decode(signal.input) as PaidCallAnswer | undefined;
    if (answer?.runId === runId && answer.activityId === activityId) return answer;
  }
  return undefined;
}

/**
 * The call of this activity's type that the runs this run was reset from made in this one's place
 * (the n-th of its type, as this is), newest run first, or undefined when none made it. A call in
 * flight when its run was reset is waited for, reading the histories every few seconds, until its
 * answer arrives or no attempt of it can still send (its start-to-close timeout after its run closed).
 */
export async function earlierPaidCall<I, R>(
  temporal: Client,
  ctx: Context,
): Promise<EarlierPaidCall<I, R> | undefined> {
  const { workflowExecution, activityId, activityType } = ctx.info;
  if (!workflowExecution) return undefined;
  const { workflowId, runId } = workflowExecution;
  const own = await historyOf(temporal, workflowId, runId);
  const mine = scheduledOf(own, activityType);
  const nth = mine.findIndex((e) => e.activityTaskScheduledEventAttributes?.activityId === activityId);
  if (nth < 0) return undefined;
  for (const baseRunId of baseRunIds(own)) {
    const events = await historyOf(temporal, workflowId, baseRunId);
    const scheduled = scheduledOf(events, activityType)[nth];
    if (!scheduled) continue;
    const attrs = scheduled.activityTaskScheduledEventAttributes!;
    const found = { runId: baseRunId, input: decode(attrs.input) as I };
    const closed = events.find((e) => closingOf(e) === String(scheduled.eventId));
    if (closed?.activityTaskCompletedEventAttributes) {
      return { ...found, outcome: 'answered', result: decode(closed.activityTaskCompletedEventAttributes.result) as R };
    }
    if (closed) {
      const failure =
        closed.activityTaskFailedEventAttributes?.failure ?? closed.activityTaskTimedOutEventAttributes?.failure;
      return { ...found, outcome: 'failed', failure: failure ?? undefined };
    }
    // Never begun when its run closed (still waiting for a worker: a paced submit in its quota's queue):
    // nothing was sent, and the closed run's task is never handed out, so this run makes the call.
    if (await neverBegun(temporal, workflowId, baseRunId, attrs.activityId ?? '')) return undefined;
    // In flight when its run closed: its attempt answers, if at all, in a signal to the current run.
    const closedAt = ms(events[events.length - 1]?.eventTime);
    const settledAt = closedAt + ms(attrs.startToCloseTimeout) + REPORT_MARGIN_MS;
    for (;;) {
      const late = lateAnswer(await historyOf(temporal, workflowId, runId), baseRunId, attrs.activityId ?? '');
      if (late) return { ...found, outcome: 'answered', result: late.result as R };
      const left = settledAt - Date.now();
      if (left <= 0) return { ...found, outcome: 'unanswered' };
      ctx.heartbeat();
      await ctx.sleep(Math.min(LOOK_EVERY_MS, left));
    }
  }
  return undefined;
}

/**
 * Whether the closed run's activity `activityId` was still waiting for its first attempt to start: a
 * closed run keeps its pending activities' state, so the server can tell scheduled from started.
 */
async function neverBegun(temporal: Client, workflowId: string, runId: string, activityId: string): Promise<boolean> {
  const { raw } = await temporal.workflow.getHandle(workflowId, runId).describe();
  const pending = raw.pendingActivities?.find((a) => a.activityId === activityId);
  return pending?.state === PENDING_SCHEDULED && (pending.attempt ?? 1) <= 1;
}

function closingOf(e: HistoryEvent): string | undefined {
  const attrs =
    e.activityTaskCompletedEventAttributes ??
    e.activityTaskFailedEventAttributes ??
    e.activityTaskTimedOutEventAttributes ??
    e.activityTaskCanceledEventAttributes;
  return attrs?.scheduledEventId?.toString();
}

/** What a paid call's attempt records as its heartbeat right before it sends (`sendingAt`, epoch ms). */
export interface SendingMark {
  sendingAt: number;
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
