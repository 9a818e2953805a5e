// Tunables of the batch emulator, global (admin API) and per batch (metadata overrides). Every
// duration is in emulated milliseconds, so EMULATOR_CLOCK_SPEED shortens all of them at once.
import { z } from 'zod';
import { BATCH_WINDOW_HOURS, formatIssues, parseOrThrow, type ValidationIssue } from '@platform-ops/client';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

const Ms = z.number().finite().min(0);
const Rate = z.number().min(0).max(1);

const BatchSettingsSchema = z.strictObject({
  /** How long a batch stays VALIDATING. */
  validatingMs: Ms,
  /** Requests run one after another; each takes this long. */
  perRequestMs: Ms,
  /** Between the last request and COMPLETED (finalizing_at is set, the status is still PROGRESS). */
  finalizingMs: Ms,
  /** How long CANCELLING lasts before CANCELLED. */
  cancellingMs: Ms,
  /** The completion window. The spec fixes it at 48 h; settable only so tests can shorten it. */
  windowMs: Ms,
  /** Share of requests that fail, chosen by a hash of custom_id (repeatable). */
  requestFailureRate: Rate,
  /** Share of batches that fail as a whole at the end of validation, chosen by a hash of the batch id. */
  batchFailureRate: Rate,
  /** Input files disappear this long after upload (platform-notes: 15 days). */
  inputFileRetentionMs: Ms,
  /** Output and error files disappear this long after the batch ends (platform-notes: 30 days). */
  outputFileRetentionMs: Ms,
});
export type BatchSettings = z.infer<typeof BatchSettingsSchema>;

/** What the admin API accepts: any subset of the settings. */
export const BatchSettingsUpdate = BatchSettingsSchema.partial();
export type BatchSettingsUpdate = z.infer<typeof BatchSettingsUpdate>;

export const DEFAULT_BATCH_SETTINGS: Readonly<BatchSettings> = Object.freeze({
  validatingMs: 2_000,
  perRequestMs: 500,
  finalizingMs: 1_000,
  cancellingMs: 1_000,
  windowMs: BATCH_WINDOW_HOURS * HOUR_MS,
  requestFailureRate: 0,
  batchFailureRate: 0,
  inputFileRetentionMs: 15 * DAY_MS,
  outputFileRetentionMs: 30 * DAY_MS,
});

/** Merges `partial` over `base`, throwing a RangeError that names every bad field. */
export function mergeSettings(base: Readonly<BatchSettings>, partial: unknown): BatchSettings {
  const parsed = parseOrThrow(
    BatchSettingsUpdate,
    partial ?? {},
    (issues) => new RangeError(`invalid batch settings: ${formatIssues(issues)}`),
  );
  const defined = Object.fromEntries(Object.entries(parsed).filter(([, v]) => v !== undefined));
  return { ...base, ...defined };
}

/** The settings one batch runs with: frozen at create, so later admin changes never rewrite its history. */
export interface BatchPlan {
  validatingMs: number;
  perRequestMs: number;
  finalizingMs: number;
  cancellingMs: number;
  windowMs: number;
  requestFailureRate: number;
  /** The whole batch fails at the end of validation. */
  failWholeBatch: boolean;
  /** Why it fails as a whole, for the batch's `errors`. */
  failReason?: string;
}

/** Metadata keys that override a setting for one batch (metadata values are strings). */
const METADATA_OVERRIDES = {
  emulator_validating_ms: 'validatingMs',
  emulator_per_request_ms: 'perRequestMs',
  emulator_finalizing_ms: 'finalizingMs',
  emulator_cancelling_ms: 'cancellingMs',
  emulator_window_ms: 'windowMs',
  emulator_request_failure_rate: 'requestFailureRate',
} as const satisfies Record<string, keyof BatchSettings>;

/** Metadata `{emulator: "fail"}` makes the whole batch fail. */
const METADATA_FAIL_KEY = 'emulator';
const METADATA_FAIL_VALUE = 'fail';

/**
 * The plan of a new batch: global settings, then the metadata overrides. Bad override values are
 * reported as issues on `metadata.<key>` so the create call answers 400 instead of guessing.
 */
export function planFor(
  settings: Readonly<BatchSettings>,
  metadata: Readonly<Record<string, string>> | undefined,
  batchFailureDraw: number,
): { plan: BatchPlan; issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  const merged: BatchSettings = { ...settings };
  for (const [key, setting] of Object.entries(METADATA_OVERRIDES)) {
    const raw = metadata?.[key];
    if (raw === undefined) continue;
    const value = raw.trim() === '' ? NaN : Number(raw);
    const schema = setting === 'requestFailureRate' ? Rate : Ms;
    if (!schema.safeParse(value).success) {
      const rule = setting === 'requestFailureRate' ? 'a number from 0 to 1' : 'a number of milliseconds >= 0';
      issues.push({ field: `metadata.${key}`, rule: `must be ${rule} (is ${JSON.stringify(raw)})` });
      continue;
    }
    merged[setting] = value;
  }
  const forced = metadata?.[METADATA_FAIL_KEY] === METADATA_FAIL_VALUE;
  const drawn = batchFailureDraw < settings.batchFailureRate;
  return {
    plan: {
      validatingMs: merged.validatingMs,
      perRequestMs: merged.perRequestMs,
      finalizingMs: merged.finalizingMs,
      cancellingMs: merged.cancellingMs,
      windowMs: merged.windowMs,
      requestFailureRate: merged.requestFailureRate,
      failWholeBatch: forced || drawn,
      failReason: forced
        ? `validation failed: the batch metadata asks the emulator to fail it (${METADATA_FAIL_KEY}=${METADATA_FAIL_VALUE})`
        : drawn
          ? 'validation failed: emulated whole-batch failure (batchFailureRate)'
          : undefined,
    },
    issues,
  };
}
