// A scenario: faults and platform behaviour scripted over emulated time, so a CI run can replay an
// incident exactly ("an outage from t = 30 s for 5 min, then one task refused as ILLEGAL_PROMPT").
// JSON, checked with zod; every error names the field and the rule. t = 0 is the moment the scenario
// is loaded (at start for `--scenario`), on the emulated clock.
import { z } from 'zod';
import { BatchSettingsUpdate } from '../batches/settings';
import { FaultConfigSchema } from '../faults';
import { FailureReason, TASK_OPERATIONS, TaskSettingsUpdateSchema } from '../task-settings';

const DAY_MS = 86_400_000;
/** Longer than any incident worth replaying, and far inside what the clock can add. */
const MAX_SCENARIO_MS = 30 * DAY_MS;
const MAX_EVENTS = 1_000;

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: DAY_MS } as const;
const DURATION_TEXT = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/;

/** Emulated milliseconds, as a number or a text like "30s", "5m", "1.5h". */
export function parseDuration(value: number | string): number | undefined {
  if (typeof value === 'number') return Number.isInteger(value) && value >= 0 ? value : undefined;
  const m = DURATION_TEXT.exec(value.trim());
  if (!m) return undefined;
  return Math.round(Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS]);
}

const Duration = z
  .union([z.number(), z.string().max(32)], {
    error: 'must be a duration: whole milliseconds, or a text like "30s", "5m", "1h"',
  })
  .transform((value, ctx) => {
    const ms = parseDuration(value);
    if (ms === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: 'must be a duration: whole milliseconds, or a text like "500ms", "30s", "5m", "1h", "2d"',
      });
      return z.NEVER;
    }
    return ms;
  })
  .pipe(z.number().max(MAX_SCENARIO_MS, { error: 'must be at most 30 days' }));

const At = { at: Duration };

/** Every event kind, by its `do`. */
const EventSchema = z.discriminatedUnion('do', [
  z.strictObject({
    ...At,
    /** How long the faults last; absent: until the scenario is stopped. */
    for: Duration.optional(),
    do: z.literal('faults'),
    /** Same shape as `routes` of PUT /_emulator/faults. */
    routes: FaultConfigSchema.shape.routes,
  }),
  z.strictObject({ ...At, do: z.literal('taskSettings'), settings: TaskSettingsUpdateSchema }),
  z.strictObject({
    ...At,
    do: z.literal('failTasks'),
    /** The reason the next `count` submitted tasks fail with. */
    reason: FailureReason,
    count: z.number().int().min(1).max(10_000).default(1),
    /** Only tasks of this operation; absent: either. */
    operation: z.enum(TASK_OPERATIONS).optional(),
  }),
  z.strictObject({ ...At, do: z.literal('batchSettings'), settings: BatchSettingsUpdate }),
  z.strictObject({ ...At, do: z.literal('clockSpeed'), speed: z.number().gt(0).max(1_000_000) }),
]);
export type ScenarioEvent = z.output<typeof EventSchema>;

export const ScenarioSchema = z.strictObject({
  name: z
    .string()
    .min(1)
    .max(100)
    .regex(/^[\w.-]+$/, { error: 'must be letters, digits, "_", "-" or "."' }),
  description: z.string().max(2_000).optional(),
  /** Emulated ms per real ms from the moment the scenario is loaded. */
  clockSpeed: z.number().gt(0).max(1_000_000).optional(),
  events: z.array(EventSchema).min(1).max(MAX_EVENTS),
});
/** What a scenario file holds (durations as numbers or texts). */
export type ScenarioInput = z.input<typeof ScenarioSchema>;
/** A checked scenario: durations in emulated ms. */
export type Scenario = z.output<typeof ScenarioSchema>;
