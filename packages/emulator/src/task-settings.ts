// Per-operation settings of the async task emulation: how long a task queues and runs (emulated ms),
// how often it fails and why, how long its output URLs live, and how honest its ETA is. Every model
// of the registry (POST /v3/async/<model>) shares the `submitAsyncTask` settings.
import { z } from 'zod';
import type { VideoOperation } from './pricing';

export const TASK_OPERATIONS = [
  'submitImageToVideo',
  'submitTextToVideo',
  'submitAsyncTask',
] as const satisfies readonly (VideoOperation | 'submitAsyncTask')[];
export type TaskOperation = (typeof TASK_OPERATIONS)[number];

/** A failure reason as the platform writes them: an upper-case name. */
export const FailureReason = z.string().regex(/^[A-Z][A-Z0-9_]*$/, { error: 'must be an UPPER_CASE reason name' });

const TaskSettingsSchema = z.strictObject({
  queuedMs: z
    .number()
    .int()
    .min(0)
    .max(7 * 86_400_000),
  processingMs: z
    .number()
    .int()
    .min(0)
    .max(7 * 86_400_000),
  /** Share of tasks that end FAILED, drawn per task at submit. */
  failureRate: z.number().min(0).max(1),
  /** Reasons a failing task picks from, uniformly. */
  failureReasons: z.array(FailureReason).min(1),
  /** How long output URLs work after the task ends (emulated seconds). */
  outputTtlSeconds: z
    .number()
    .int()
    .min(1)
    .max(30 * 86_400),
  /** 1 = `eta` is exact; lower values make it wander by up to ±(1 − accuracy) of the remaining time. */
  etaAccuracy: z.number().min(0).max(1),
});
export type TaskSettings = z.infer<typeof TaskSettingsSchema>;

export const TaskSettingsUpdateSchema = z.partialRecord(z.enum(TASK_OPERATIONS), TaskSettingsSchema.partial());
type TaskSettingsUpdate = z.infer<typeof TaskSettingsUpdateSchema>;
export type TaskSettingsByOperation = Record<TaskOperation, TaskSettings>;

/**
 * Defaults: tens of emulated seconds, like a short video render, and no random failures, so a run is
 * repeatable unless a test asks for failures (failureRate or a prompt marker).
 */
export const DEFAULT_TASK_SETTINGS: TaskSettingsByOperation = {
  submitImageToVideo: {
    queuedMs: 2_000,
    processingMs: 20_000,
    failureRate: 0,
    failureReasons: ['INTERNAL_ERROR', 'GENERATION_TIMEOUT'],
    outputTtlSeconds: 3_600,
    etaAccuracy: 1,
  },
  submitTextToVideo: {
    queuedMs: 3_000,
    processingMs: 30_000,
    failureRate: 0,
    failureReasons: ['INTERNAL_ERROR', 'GENERATION_TIMEOUT'],
    outputTtlSeconds: 3_600,
    etaAccuracy: 1,
  },
  // Images and speech take seconds, not tens of them.
  submitAsyncTask: {
    queuedMs: 1_000,
    processingMs: 8_000,
    failureRate: 0,
    failureReasons: ['INTERNAL_ERROR', 'GENERATION_TIMEOUT'],
    outputTtlSeconds: 3_600,
    etaAccuracy: 1,
  },
};

export function mergeTaskSettings(base: TaskSettingsByOperation, update: TaskSettingsUpdate): TaskSettingsByOperation {
  const out = { ...base };
  for (const op of TASK_OPERATIONS) {
    const patch = update[op];
    if (patch) out[op] = { ...out[op], ...patch };
  }
  return out;
}
