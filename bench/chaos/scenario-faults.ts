// The shipped example scenarios (packages/emulator/scenarios/) as faults of the suite: each is loaded through
// the admin API exactly as a user's CI would load it, and a wave of every workflow type starts into
// it. A scenario replays an incident on the emulated clock, so its wave lasts the scenario's own
// length (divided by the clock speed), not a length of the suite's choosing.
import path from 'node:path';
import { FailureType } from '@platform-ops/client';
import { findProjectRoot } from '../../src/config/settings';
import { loadEmulatorConfig, type Scenario, ScenarioSchema } from '@platform-ops/emulator';
import type { ChaosFault, FaultContext } from './fault-plan';

/** The examples the suite plays by default, after its own faults. */
export const EXAMPLE_SCENARIOS = ['outage.json', 'rate-limit-storm.json', 'batch-expiry.json'] as const;

/**
 * A scenario whose events are all at t = 0 and open-ended (new batch settings, say) still holds this
 * long, so its whole wave starts under it.
 */
const MIN_HOLD_MS = 15_000;

export function exampleScenarioPath(file: string): string {
  return path.join(findProjectRoot(__dirname), 'packages', 'emulator', 'scenarios', file);
}

/** Reads a scenario file as `platform-ops emulator --scenario <file>` reads it (same checks, same errors). */
export function readScenario(file: string): Scenario {
  const { scenario } = loadEmulatorConfig({}, { scenario: file });
  return ScenarioSchema.parse(scenario);
}

/** Emulated ms from t = 0 to the end of the scenario's last event (open-ended events end where they start). */
export function scenarioLengthMs(scenario: Scenario): number {
  return scenario.events.reduce((end, e) => Math.max(end, e.at + ('for' in e ? (e.for ?? 0) : 0)), 0);
}

/**
 * The failures a scenario causes on purpose: its `failTasks` events fail that many generations, each
 * a GenerationFailed the workflow cannot avoid. Only that many are justified; one more is the service's.
 */
export function scriptedFailures(scenario: Scenario): Record<string, number> {
  const count = scenario.events.reduce((n, e) => n + (e.do === 'failTasks' ? e.count : 0), 0);
  return count > 0 ? { [FailureType.GenerationFailed]: count } : {};
}

/**
 * A suite fault that plays `file` at the suite's clock speed. Healing stops it and puts back what a
 * scenario may leave behind: the batch settings and the clock speed (the faults go with the scenario).
 */
export function scenarioFault(file: string, clockSpeed: number): ChaosFault {
  const scenario = readScenario(file);
  let batchSettings: unknown;
  return {
    name: `scenario-${scenario.name}`,
    what: `${path.basename(file)}: ${scenario.description ?? scenario.name}`,
    kind: 'state',
    justifies: [],
    allowances: scriptedFailures(scenario),
    holdMs: Math.max(MIN_HOLD_MS, Math.ceil(scenarioLengthMs(scenario) / (scenario.clockSpeed ?? clockSpeed))),
    strike: async (ctx: FaultContext) => {
      batchSettings = await ctx.stack.admin('GET', '/batches/settings');
      // The admin API checks it again, as it checks a user's.
      await ctx.stack.admin('POST', '/scenario', scenario);
    },
    heal: async (ctx: FaultContext) => {
      await ctx.stack.admin('DELETE', '/scenario');
      await ctx.stack.admin('PUT', '/batches/settings', batchSettings);
      await ctx.stack.admin('PUT', '/clock', { speed: clockSpeed });
    },
  };
}
