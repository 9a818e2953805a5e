// Async tasks: QUEUED → PROCESSING → SUCCEED or FAILED, derived from the creation time and the task's
// durations on the emulated clock (so clock speed changes and advances need no bookkeeping). The end's
// side effects (the charge, the real time of the end) happen once: at the first read at or after the
// end, or by a sweep every 250 ms real time, so a task nobody polls is still billed.
import type { EmulatorClock } from '../clock';
import { IdGenerator, mix } from '../hash';
import type { ChargeRecord, Accounts } from '../accounts';
import { GEN_API_CATEGORY, VIDEO_PRODUCTS, type VideoCharge, type VideoOperation } from '../pricing';
import type { Caller } from '../types';
import type { TaskMarkers } from './markers';
import type { OutputKind } from './outputs';
import { DEFAULT_TASK_SETTINGS, type TaskOperation, type TaskSettings, type TaskSettingsByOperation } from './settings';

const SWEEP_INTERVAL_MS = 250;

export type TaskStatus = 'TASK_STATUS_QUEUED' | 'TASK_STATUS_PROCESSING' | 'TASK_STATUS_SUCCEED' | 'TASK_STATUS_FAILED';

const TASK_TYPES: Record<VideoOperation, string> = {
  submitImageToVideo: 'IMG_TO_VIDEO',
  submitTextToVideo: 'TXT_TO_VIDEO',
};

/** A registry model's task (POST /v3/async/<model>): what it is billed as and the files it produces. */
export interface ModelTask {
  product: { productId: string; productName: string };
  taskType: string;
  files: OutputKind[];
}

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

interface Settlement {
  /** Emulated ms of the end (the planned end, not the moment it was noticed). */
  finishedAt: number;
  /** Real epoch ms at which the emulated clock passed the end. */
  finishedAtReal: number;
  charge?: ChargeRecord;
  chargeError?: string;
}

export interface TaskRecord {
  id: string;
  /** Numeric salt of the id for cheap per-read jitter. */
  salt: number;
  operation: TaskOperation;
  product: ModelTask['product'];
  taskType: string;
  /** The output files a success produces, in the result's order. */
  files: OutputKind[];
  caller: Caller;
  /** Emulated ms. */
  createdAt: number;
  createdAtReal: number;
  queuedMs: number;
  processingMs: number;
  /** Emulated ms of the planned end. */
  endAt: number;
  failReason?: string;
  etaAccuracy: number;
  outputTtlSeconds: number;
  videoSeconds: number;
  sound: boolean;
  nsfwDetection: boolean;
  seed: string;
  /** Names the output files; unguessable, as a presigned URL would be. */
  token: string;
  charge: VideoCharge;
  settlement?: Settlement;
  /** The terminal answer, serialised once: polls of finished tasks send it as is. */
  terminalJson?: string;
  webhookUrl?: string;
}

interface TaskResultBody {
  extra: {
    seed: string;
    enable_nsfw_detection: boolean;
    debug_info: { request_info: string; submit_time_ms: string; execute_time_ms: string; complete_time_ms: string };
  };
  task: {
    task_id: string;
    status: TaskStatus;
    reason: string;
    task_type: string;
    eta: number;
    progress_percent: number;
  };
  images: { image_url: string; image_url_ttl: number; image_type: string; nsfw_detection_result: null }[];
  videos: { video_url: string; video_url_ttl: string; video_type: string }[];
  audios: {
    audio_url: string;
    audio_url_ttl: string;
    audio_type: string;
    audio_metadata: { text: string; start_time: number; end_time: number };
  }[];
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

  statusAt(task: TaskRecord, now: number): TaskStatus {
    if (now >= task.endAt) return task.failReason ? 'TASK_STATUS_FAILED' : 'TASK_STATUS_SUCCEED';
    return now < task.createdAt + task.queuedMs ? 'TASK_STATUS_QUEUED' : 'TASK_STATUS_PROCESSING';
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
      task.terminalJson = JSON.stringify(this.resultBody(task, now));
      return task.terminalJson;
    }
    return JSON.stringify(this.resultBody(task, now));
  }

  resultBody(task: TaskRecord, now: number): TaskResultBody {
    const status = this.statusAt(task, now);
    const terminal = status === 'TASK_STATUS_SUCCEED' || status === 'TASK_STATUS_FAILED';
    const startedAt = task.createdAt + task.queuedMs;
    const body: TaskResultBody = {
      extra: {
        seed: task.seed,
        enable_nsfw_detection: task.nsfwDetection,
        debug_info: {
          request_info: '',
          submit_time_ms: String(Math.floor(task.createdAt)),
          execute_time_ms: now >= startedAt ? String(Math.floor(startedAt)) : '0',
          complete_time_ms: terminal ? String(Math.floor(task.endAt)) : '0',
        },
      },
      task: {
        task_id: task.id,
        status,
        reason: status === 'TASK_STATUS_FAILED' ? (task.failReason ?? '') : '',
        task_type: task.taskType,
        eta: terminal ? 0 : this.eta(task, now),
        progress_percent: this.progress(task, status, now),
      },
      images: [],
      videos: [],
      audios: [],
    };
    if (status === 'TASK_STATUS_SUCCEED') {
      const base = `${this.publicUrl()}/_files/outputs/${task.token}`;
      const ttl = String(task.outputTtlSeconds);
      for (const file of task.files) {
        if (file === 'mp4') body.videos.push({ video_url: `${base}.mp4`, video_url_ttl: ttl, video_type: 'mp4' });
        else if (file === 'wav') {
          body.audios.push({
            audio_url: `${base}.wav`,
            audio_url_ttl: ttl,
            audio_type: 'wav',
            audio_metadata: { text: '', start_time: 0, end_time: task.videoSeconds },
          });
        } else {
          // An integer TTL for images, as task-result shows it (platform-notes).
          body.images.push({
            image_url: `${base}.png`,
            image_url_ttl: task.outputTtlSeconds,
            image_type: 'png',
            nsfw_detection_result: null,
          });
        }
      }
    }
    return body;
  }

  /** Remaining emulated seconds, off by up to ±(1 − etaAccuracy), the error changing each emulated second. */
  private eta(task: TaskRecord, now: number): number {
    const remainingMs = task.endAt - now;
    let factor = 1;
    if (task.etaAccuracy < 1) {
      const second = Math.floor((now - task.createdAt) / 1000);
      factor = 1 + (1 - task.etaAccuracy) * (2 * mix(task.salt, second) - 1);
    }
    return Math.max(0, Math.ceil((remainingMs * factor) / 1000));
  }

  private progress(task: TaskRecord, status: TaskStatus, now: number): number {
    switch (status) {
      case 'TASK_STATUS_QUEUED':
      case 'TASK_STATUS_FAILED':
        return 0;
      case 'TASK_STATUS_SUCCEED':
        return 100;
      case 'TASK_STATUS_PROCESSING': {
        const done = (now - task.createdAt - task.queuedMs) / Math.max(1, task.processingMs);
        return Math.min(99, Math.max(0, Math.floor(done * 100)));
      }
    }
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
    if (this.statusAt(task, now) !== 'TASK_STATUS_SUCCEED') return undefined;
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
      status: this.statusAt(task, now),
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
      result: this.resultBody(task, now),
    };
  }

  count(): number {
    return this.tasks.size;
  }
}
