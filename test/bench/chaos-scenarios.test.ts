// The fault suite plays the shipped example scenarios: each file reads as the emulator's --scenario
// reads it, its wave lasts the scenario's length on the suite's clock, and only the failures it
// scripts are allowed.
import { CHAOS_CLOCK_SPEED } from '../../bench/chaos/workload';
import {
  EXAMPLE_SCENARIOS,
  exampleScenarioPath,
  readScenario,
  scenarioFault,
  scenarioLengthMs,
  scriptedFailures,
} from '../../bench/chaos/scenario-faults';
import { DEFAULT_CHAOS_OPTIONS } from '../../bench/chaos/suite';

describe('example scenarios in the fault suite', () => {
  it('plays all three shipped examples by default', () => {
    expect(DEFAULT_CHAOS_OPTIONS.scenarios).toEqual(EXAMPLE_SCENARIOS.map(exampleScenarioPath));
    expect(EXAMPLE_SCENARIOS).toHaveLength(3);
  });

  it("holds each scenario's wave for the scenario's own length on the suite's clock", () => {
    const outage = readScenario(exampleScenarioPath('outage.json'));
    expect(scenarioLengthMs(outage)).toBe(330_000);
    expect(scenarioFault(exampleScenarioPath('outage.json'), CHAOS_CLOCK_SPEED)).toMatchObject({
      name: 'scenario-outage-5m',
      kind: 'state',
      holdMs: 33_000,
      justifies: [],
      allowances: {},
    });
    // Settings at t = 0 and nothing after: held long enough for the whole wave to start under them.
    const expiry = scenarioFault(exampleScenarioPath('batch-expiry.json'), CHAOS_CLOCK_SPEED);
    expect(expiry.holdMs).toBe(15_000);
  });

  it('allows exactly the failures a scenario scripts', () => {
    const storm = readScenario(exampleScenarioPath('rate-limit-storm.json'));
    expect(scriptedFailures(storm)).toEqual({ GenerationFailed: 1 });
    expect(scriptedFailures(readScenario(exampleScenarioPath('outage.json')))).toEqual({});
  });

  it('refuses a scenario file the emulator would refuse, naming the field', () => {
    expect(() => readScenario(exampleScenarioPath('no-such-file.json'))).toThrow(/no-such-file\.json/);
  });
});
