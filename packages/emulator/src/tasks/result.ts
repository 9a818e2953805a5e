// A task's record and its task-result answer at an emulated instant (status, ETA, progress, output
// URLs), computed from the record and the time alone; the store's bookkeeping (submit, settlement, the
// sweep) is in store.ts.
import { mix } from '../hash';
import type { ChargeRecord } from '../accounts';
import type { VideoCharge } from '../pricing';
import type { Caller } from '../types';
import type { OutputKind } from './outputs';
import type { TaskOperation } from '../task-settings';

export type TaskStatus = 'TASK_STATUS_QUEUED' | 'TASK_STATUS_PROCESSING' | 'TASK_STATUS_SUCCEED' | 'TASK_STATUS_FAILED';

/** A registry model's task (POST /v3/async/<model>): what it is billed as and the files it produces. */
export interface ModelTask {
  product: { productId: string; productName: string };
  taskType: string;
  files: OutputKind[];
}

export interface Settlement {
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

export interface TaskResultBody {
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

export function statusAt(task: TaskRecord, now: number): TaskStatus {
  if (now >= task.endAt) return task.failReason ? 'TASK_STATUS_FAILED' : 'TASK_STATUS_SUCCEED';
  return now < task.createdAt + task.queuedMs ? 'TASK_STATUS_QUEUED' : 'TASK_STATUS_PROCESSING';
}

export function resultBody(task: TaskRecord, now: number, publicUrl: () => string): TaskResultBody {
  const status = statusAt(task, now);
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
      eta: terminal ? 0 : eta(task, now),
      progress_percent: progress(task, status, now),
    },
    images: [],
    videos: [],
    audios: [],
  };
  if (status === 'TASK_STATUS_SUCCEED') {
    const base = `${publicUrl()}/_files/outputs/${task.token}`;
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
function eta(task: TaskRecord, now: number): number {
  const remainingMs = task.endAt - now;
  let factor = 1;
  if (task.etaAccuracy < 1) {
    const second = Math.floor((now - task.createdAt) / 1000);
    factor = 1 + (1 - task.etaAccuracy) * (2 * mix(task.salt, second) - 1);
  }
  return Math.max(0, Math.ceil((remainingMs * factor) / 1000));
}

function progress(task: TaskRecord, status: TaskStatus, now: number): number {
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
