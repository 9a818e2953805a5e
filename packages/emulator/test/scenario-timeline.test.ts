// The scenario's schema and timeline as plain code (no server): durations, errors naming the field and
// rule, events due once each in time order, fault windows merged and closed.
import { formatIssues, tryParse } from '@platform-ops/client';
import { ScenarioSchema, parseDuration, type Scenario } from '../src/scenario/schema';
import { ScenarioTimeline } from '../src/scenario/timeline';

const parse = (input: unknown): Scenario => ScenarioSchema.parse(input);
const problems = (input: unknown): string => {
  const checked = tryParse(ScenarioSchema, input);
  return checked.ok ? '' : formatIssues(checked.issues);
};

describe('scenario schema', () => {
  it('reads durations as whole ms or texts with a unit', () => {
    expect(parseDuration(1500)).toBe(1500);
    expect(parseDuration('30s')).toBe(30_000);
    expect(parseDuration('5m')).toBe(300_000);
    expect(parseDuration('1.5h')).toBe(5_400_000);
    expect(parseDuration('250ms')).toBe(250);
    expect(parseDuration('2d')).toBe(172_800_000);
    for (const bad of [-1, 1.5, '30', '5 minutes', 's', '']) expect(parseDuration(bad)).toBeUndefined();
  });

  it('names the field and the rule of every mistake', () => {
    expect(problems({ name: 'x', events: [] })).toBe('events: must have at least 1 item');
    expect(problems({ events: [{ at: 0, do: 'clockSpeed', speed: 2 }] })).toBe('name: is required');
    expect(problems({ name: 'x', events: [{ at: '30 seconds', do: 'clockSpeed', speed: 2 }] })).toBe(
      'events[0].at: must be a duration: whole milliseconds, or a text like "500ms", "30s", "5m", "1h", "2d"',
    );
    expect(problems({ name: 'x', events: [{ at: '31d', do: 'clockSpeed', speed: 2 }] })).toBe(
      'events[0].at: must be at most 30 days',
    );
    expect(problems({ name: 'x', events: [{ at: 0, do: 'explode' }] })).toMatch(
      /^events\[0\]\.do: must be one of "faults", "taskSettings", "failTasks", "batchSettings", "clockSpeed"/,
    );
    expect(problems({ name: 'x', events: [{ at: 0, do: 'failTasks', reason: 'bad reason' }] })).toBe(
      'events[0].reason: must be an UPPER_CASE reason name',
    );
    expect(problems({ name: 'x', events: [{ at: 0, do: 'faults', routes: { '*': { rate429: 2 } }, extra: 1 }] })).toBe(
      'events[0].routes.*.rate429: must be at most 1; events[0].extra: is not a known field',
    );
    expect(problems({ name: 'has space', events: [{ at: 0, do: 'clockSpeed', speed: 2 }] })).toBe(
      'name: must be letters, digits, "_", "-" or "."',
    );
  });
});

describe('scenario timeline', () => {
  const scenario = parse({
    name: 'incident',
    events: [
      { at: '1m', for: '2m', do: 'faults', routes: { '*': { errorRate5xx: 1 }, taskResult: { rate429: 1 } } },
      { at: '2m', for: '2m', do: 'faults', routes: { taskResult: { latencyMs: 5 } } },
      { at: '90s', do: 'failTasks', reason: 'ILLEGAL_PROMPT' },
      { at: 0, do: 'clockSpeed', speed: 5 },
      { at: '90s', do: 'batchSettings', settings: { windowMs: 1000 } },
    ],
  });

  it('gives each event once, in time order (ties in file order), and the fault table as windows open and close', () => {
    const t = new ScenarioTimeline(scenario);
    expect(t.advanceTo(0)).toEqual([{ kind: 'event', index: 3, event: scenario.events[3] }]);
    expect(t.nextChangeAt()).toBe(60_000);
    expect(t.advanceTo(59_999)).toEqual([]);
    expect(t.advanceTo(60_000)).toEqual([
      { kind: 'faults', routes: { '*': { errorRate5xx: 1 }, taskResult: { rate429: 1 } } },
    ]);
    expect(t.nextChangeAt()).toBe(90_000);
    // A jump over several moments: every event due, the fault table as it is at the end of the jump.
    expect(t.advanceTo(150_000)).toEqual([
      { kind: 'event', index: 2, event: scenario.events[2] },
      { kind: 'event', index: 4, event: scenario.events[4] },
      { kind: 'faults', routes: { '*': { errorRate5xx: 1 }, taskResult: { latencyMs: 5 } } },
    ]);
    expect(t.advanceTo(100_000)).toEqual([]); // time never goes back
    expect(t.advanceTo(180_000)).toEqual([{ kind: 'faults', routes: { taskResult: { latencyMs: 5 } } }]);
    expect(t.advanceTo(240_000)).toEqual([{ kind: 'faults', routes: {} }]);
    expect(t.nextChangeAt()).toBe(Infinity);
    expect(t.states(240_000)).toEqual(['over', 'over', 'applied', 'applied', 'applied']);
  });

  it('keeps a window without `for` open, and reports pending and active events', () => {
    const open = new ScenarioTimeline(
      parse({ name: 'open', events: [{ at: '10s', do: 'faults', routes: { '*': { rate429: 1 } } }] }),
    );
    expect(open.states(0)).toEqual(['pending']);
    expect(open.advanceTo(10_000)).toEqual([{ kind: 'faults', routes: { '*': { rate429: 1 } } }]);
    expect(open.advanceTo(1e12)).toEqual([]);
    expect(open.states(1e12)).toEqual(['active']);
    expect(open.nextChangeAt()).toBe(Infinity);
  });
});
