// A scenario's events on its own time axis (emulated ms since it was loaded): which actions are due
// at a given moment, each once, and which fault windows are open. Pure: no clock, no server; the
// runner feeds it the emulated now.
import type { FaultConfig } from '../faults';
import type { Scenario, ScenarioEvent } from './schema';

type FaultEvent = Extract<ScenarioEvent, { do: 'faults' }>;
export type OneShotEvent = Exclude<ScenarioEvent, { do: 'faults' }>;

/** What the emulator must do now. */
export type TimelineAction =
  | { kind: 'event'; index: number; event: OneShotEvent }
  /** The fault table becomes exactly these routes: the windows open now, later events winning per key. */
  | { kind: 'faults'; routes: FaultConfig['routes'] };

interface Window {
  index: number;
  from: number;
  to: number;
  routes: FaultConfig['routes'];
}

export type EventState = 'pending' | 'applied' | 'active' | 'over';

export class ScenarioTimeline {
  /** One-shot events by time (ties keep file order). */
  private readonly oneShots: { index: number; event: OneShotEvent }[];
  private readonly windows: Window[];
  /** Boundaries of fault windows, ascending: the moments the fault table changes. */
  private readonly boundaries: number[];
  private nextOneShot = 0;
  private openKey = '';
  private lastT = -1;

  constructor(readonly scenario: Scenario) {
    const indexed = scenario.events.map((event, index) => ({ index, event }));
    this.oneShots = indexed
      .filter((e): e is { index: number; event: OneShotEvent } => e.event.do !== 'faults')
      .sort((a, b) => a.event.at - b.event.at || a.index - b.index);
    this.windows = indexed
      .filter((e): e is { index: number; event: FaultEvent } => e.event.do === 'faults')
      .map(({ index, event }) => ({
        index,
        from: event.at,
        to: event.for === undefined ? Infinity : event.at + event.for,
        routes: event.routes,
      }));
    this.boundaries = [...new Set(this.windows.flatMap((w) => [w.from, w.to]))]
      .filter(Number.isFinite)
      .sort((a, b) => a - b);
  }

  /** Everything due by `t` (ms since load) not yet returned, in time order; the fault table last. */
  advanceTo(t: number): TimelineAction[] {
    if (t < this.lastT) t = this.lastT; // emulated time never goes back; a stale reader changes nothing
    this.lastT = t;
    const actions: TimelineAction[] = [];
    while (this.nextOneShot < this.oneShots.length && this.oneShots[this.nextOneShot].event.at <= t) {
      const { index, event } = this.oneShots[this.nextOneShot++];
      actions.push({ kind: 'event', index, event });
    }
    const open = this.windows.filter((w) => w.from <= t && t < w.to);
    const key = open.map((w) => w.index).join(',');
    if (key !== this.openKey) {
      this.openKey = key;
      const routes: FaultConfig['routes'] = {};
      for (const w of open) Object.assign(routes, w.routes);
      actions.push({ kind: 'faults', routes });
    }
    return actions;
  }

  /** The next moment (ms since load) at which something changes; Infinity when nothing will. */
  nextChangeAt(): number {
    const oneShot = this.oneShots[this.nextOneShot]?.event.at ?? Infinity;
    const boundary = this.boundaries.find((b) => b > this.lastT) ?? Infinity;
    return Math.min(oneShot, boundary);
  }

  /** Each event's state at `t` (ms since load). */
  states(t: number): EventState[] {
    return this.scenario.events.map((event) => {
      if (event.at > t) return 'pending';
      if (event.do !== 'faults') return 'applied';
      return event.for === undefined || t < event.at + event.for ? 'active' : 'over';
    });
  }
}
