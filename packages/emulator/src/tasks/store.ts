// Async tasks: QUEUED → PROCESSING → SUCCEED or FAILED, derived from the creation time and the task's
// durations on the emulated clock (so clock speed changes and advances need no bookkeeping). The end's
// side effects (the charge, the real time of the end) happen once: at the first read at or after the
// end, or by a sweep every 250 ms real time, so a task nobody polls is still billed.
import type { EmulatorClock } from '../clock';
import { IdGenerator } from '../hash';
import type { Accounts } from '../accounts';
import { GEN_API_CATEGORY, VIDEO_PRODUCTS, type VideoCharge, type VideoOperation } from '../pricing';
import type { Caller } from '../types';
import type { TaskMarkers } from './markers';
import type { OutputKind } from './outputs';
import { resultBody, statusAt, type ModelTask, type Settlement, type TaskRecord } from './result';
import {
  DEFAULT_TASK_SETTINGS,
  type TaskOperation,
  type TaskSettings,
  type TaskSettingsByOperation,
} from '../task-settings';

const SWEEP_INTERVAL_MS = 250;

const TASK_TYPES: Record<VideoOperation, string> = {
  submitImageToVideo: 'IMG_TO_VIDEO',
  submitTextToVideo: 'TXT_TO_VIDEO',
};

interface SubmitInput {
  operation: TaskOperation;
  /** For submitAsyncTask: the model's product, task type and files. */
  model?: ModelTask;
  caller: Caller;
  /** Seconds of video asked for. */
  videoSeconds: number;
  sound: boolean;
  nsfwDetection: boolean;
  markers: TaskMarkers;
  charge: VideoCharge;
  /** `extra.webhook.url` of the submit: where the end is called back (./callbacks.ts). */
  webhookUrl?: string;
}

export class TaskStore {
  private readonly tasks = new Map<string, TaskRecord>();
  /** Submissions seen per [emulator:fail_first] key. */
  private readonly failFirstSeen = new Map<string, number>();
  private readonly byToken = new Map<string, TaskRecord>();
  private readonly unsettled = new Set<TaskRecord>();
  /** Failures a scenario scheduled for the next submits (`failTasks`), used up in order. */
  private readonly forcedFailures: { reason: string; left: number; operation?: TaskOperation }[] = [];
  private settingsByOp: TaskSettingsByOperation = DEFAULT_TASK_SETTINGS;
  private timer?: NodeJS.Timeout;
  /** Told once per task, when its end is settled (the callback sender listens). */
  onEnd?: (task: TaskRecord) => void;

  constructor(
    private readonly clock: EmulatorClock,
    private readonly accounts: Accounts,
    private readonly ids: IdGenerator,
    /** Base of output URLs (http://host:port), known once the server listens. */
    private readonly publicUrl: () => string,
  ) {}

  get settings(): TaskSettingsByOperation {
    return this.settingsByOp;
  }

  set settings(value: TaskSettingsByOperation) {
    this.settingsByOp = value;
  }

  /** Starts the sweep that settles tasks nobody polls. */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.settleDue(), SWEEP_INTERVAL_MS);
    // The sweep must never keep the process alive on its own.
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Forgets every task (admin reset); settings are set again by the caller. */
  clear(): void {
    this.tasks.clear();
    this.failFirstSeen.clear();
    this.byToken.clear();
    this.unsettled.clear();
    this.forcedFailures.length = 0;
  }

  /** The next `count` tasks submitted (of `operation`, or any) fail with `reason`, unless a marker decides. */
  failNext(reason: string, count: number, operation?: TaskOperation): void {
    this.forcedFailures.push({ reason, left: count, operation });
  }

  private takeForcedFailure(operation: TaskOperation): string | undefined {
    const i = this.forcedFailures.findIndex((f) => f.operation === undefined || f.operation === operation);
    if (i < 0) return undefined;
    const f = this.forcedFailures[i];
    if (--f.left <= 0) this.forcedFailures.splice(i, 1);
    return f.reason;
  }

  submit(input: SubmitInput): TaskRecord {
    const settings: TaskSettings = this.settingsByOp[input.operation];
    const now = this.clock.now();
    const m = input.markers;
    // A duration marker alone means "run exactly this long": no queue time unless a queued marker says so.
    const queuedMs = m.queuedMs ?? (m.durationMs !== undefined ? 0 : settings.queuedMs);
    const processingMs = m.durationMs ?? settings.processingMs;
    let failReason: string | undefined;
    // A prompt marker decides first; then a failure a scenario scheduled.
    const forced = m.fail === undefined && !m.succeed ? this.takeForcedFailure(input.operation) : undefined;
    if (m.fail !== undefined) failReason = m.fail === true ? settings.failureReasons[0] : m.fail;
    else if (forced !== undefined) failReason = forced;
    else if (m.failFirst) {
      const seen = this.failFirstSeen.get(m.failFirst.key) ?? 0;
      this.failFirstSeen.set(m.failFirst.key, seen + 1);
      if (seen < m.failFirst.count) failReason = settings.failureReasons[0];
    } else if (!m.succeed && settings.failureRate > 0 && Math.random() < settings.failureRate) {
      failReason = settings.failureReasons[Math.floor(Math.random() * settings.failureReasons.length)];
    }
    const id = this.ids.next('task');
    const video = input.operation === 'submitAsyncTask' ? undefined : input.operation;
    const task: TaskRecord = {
      id,
      salt: Math.floor(Math.random() * 2 ** 31),
      operation: input.operation,
      product: input.model?.product ?? VIDEO_PRODUCTS[video!],
      taskType: input.model?.taskType ?? TASK_TYPES[video!],
      files: input.model?.files ?? (input.sound ? ['mp4', 'wav'] : ['mp4']),
      caller: input.caller,
      createdAt: now,
      createdAtReal: Date.now(),
      queuedMs,
      processingMs,
      endAt: now + queuedMs + processingMs,
      failReason,
      etaAccuracy: settings.etaAccuracy,
      outputTtlSeconds: m.ttlSeconds ?? settings.outputTtlSeconds,
      videoSeconds: input.videoSeconds,
      sound: input.sound,
      nsfwDetection: input.nsfwDetection,
      seed: String(Math.floor(Math.random() * 2 ** 31)),
      token: this.ids.token(),
      charge: input.charge,
      webhookUrl: input.webhookUrl,
    };
    this.tasks.set(id, task);
    this.byToken.set(task.token, task);
    this.unsettled.add(task);
    return task;
  }

  /** A task of this user (another user's task is answered as unknown: ids must not leak across accounts). */
  get(id: string, userId?: string): TaskRecord | undefined {
    const task = this.tasks.get(id);
    if (!task || (userId !== undefined && task.caller.userId !== userId)) return undefined;
    return task;
  }

  byOutputToken(token: string): TaskRecord | undefined {
    return this.byToken.get(token);
  }

  /**
   * The task-result answer as JSON text. Terminal answers are built once and reused, which keeps
   * polling finished tasks (most polls of a benchmark) nearly free.
   */
  resultJson(task: TaskRecord): string {
    if (task.terminalJson !== undefined) return task.terminalJson;
    const now = this.clock.now();
    if (now >= task.endAt) {
      this.settle(task, now);
      task.terminalJson = JSON.stringify(resultBody(task, now, this.publicUrl));
      return task.terminalJson;
    }
    return JSON.stringify(resultBody(task, now, this.publicUrl));
  }

  /** Applies the end's side effects once: the real time of the end, and the charge of a success. */
  settle(task: TaskRecord, now = this.clock.now()): void {
    if (task.settlement || now < task.endAt) return;
    // Projected back from now at the current speed: exact unless the speed changed since the end,
    // and the sweep keeps "since the end" under 250 ms real time.
    const finishedAtReal = Math.max(task.createdAtReal, Date.now() - this.clock.realDelay(now - task.endAt));
    const settlement: Settlement = { finishedAt: task.endAt, finishedAtReal };
    if (!task.failReason) {
      const product = task.product;
      try {
        settlement.charge = this.accounts.charge({
          caller: task.caller,
          productId: product.productId,
          productName: product.productName,
          category: GEN_API_CATEGORY,
          amount: task.charge.amount,
          usage: task.charge.usage,
        });
      } catch (err) {
        // The member vanished (fixtures reloaded): the task still ends, the bill line is missing.
        settlement.chargeError = (err as Error).message;
      }
    }
    task.settlement = settlement;
    this.unsettled.delete(task);
    this.onEnd?.(task);
  }

  /** Settles every task whose end has come; returns how many. */
  settleDue(): number {
    const now = this.clock.now();
    let n = 0;
    for (const task of this.unsettled) {
      if (now >= task.endAt) {
        this.settle(task, now);
        n++;
      }
    }
    return n;
  }

  /** Output file of a finished, successful task: 'expired' after its TTL, undefined if there is none. */
  output(token: string, kind: OutputKind): { task: TaskRecord } | 'expired' | undefined {
    const task = this.byToken.get(token);
    if (!task) return undefined;
    const now = this.clock.now();
    if (statusAt(task, now) !== 'TASK_STATUS_SUCCEED') return undefined;
    if (!task.files.includes(kind)) return undefined;
    if (now > task.endAt + task.outputTtlSeconds * 1000) return 'expired';
    return { task };
  }

  /** Admin view: the public answer plus the plan, the end times and the charge. */
  view(task: TaskRecord, polls: number): Record<string, unknown> {
    const now = this.clock.now();
    this.settle(task, now);
    const s = task.settlement;
    return {
      taskId: task.id,
      operation: task.operation,
      status: statusAt(task, now),
      reason: task.failReason ?? '',
      userId: task.caller.userId,
      memberId: task.caller.memberId,
      apiKeyId: task.caller.apiKeyId,
      createdAt: task.createdAt,
      createdAtReal: task.createdAtReal,
      queuedMs: task.queuedMs,
      processingMs: task.processingMs,
      plannedEndAt: task.endAt,
      finishedAt: s?.finishedAt ?? null,
      finishedAtReal: s?.finishedAtReal ?? null,
      outputTtlSeconds: task.outputTtlSeconds,
      outputsExpireAt: task.failReason ? null : task.endAt + task.outputTtlSeconds * 1000,
      videoSeconds: task.videoSeconds,
      sound: task.sound,
      nsfwDetection: task.nsfwDetection,
      price: task.charge.amount,
      charged: s?.charge ? s.charge.amount : 0,
      chargeError: s?.chargeError ?? null,
      polls,
      result: resultBody(task, now, this.publicUrl),
    };
  }

  count(): number {
    return this.tasks.size;
  }
}
