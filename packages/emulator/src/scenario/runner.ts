// Plays a scenario on the emulator: its timeline read against the emulated clock, its actions applied
// to the fault table, the task and batch settings and the clock. Driven by every incoming request (an
// onRequest hook, before faults), so a request at or after an event's moment always sees it, whatever
// the clock speed or a jump of the clock; no timer to drift.
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { ValidationIssue } from '@platform-ops/client';
import type { BatchStore } from '../batches';
import type { EmulatorClock } from '../clock';
import type { FaultStore } from '../faults';
import type { TaskStore } from '../tasks/store';
import { mergeTaskSettings } from '../task-settings';
import type { Scenario } from './schema';
import { ScenarioTimeline, type TimelineAction } from './timeline';

/** What a scenario acts on (the emulator's state). */
export interface ScenarioTarget {
  clock: EmulatorClock;
  faults: FaultStore;
  tasks: TaskStore;
  batches: BatchStore;
}

interface Running {
  timeline: ScenarioTimeline;
  /** Emulated ms at load: the scenario's t = 0. */
  startedAt: number;
  /** Emulated ms of the next change, so most requests cost one comparison. */
  nextAt: number;
}

export class ScenarioRunner {
  private running?: Running;

  constructor(private readonly target: ScenarioTarget) {}

  /** Problems a scenario's fault routes have on this emulator (unknown route keys), each naming its field. */
  problems(scenario: Scenario): ValidationIssue[] {
    return scenario.events.flatMap((event, i) =>
      event.do === 'faults'
        ? this.target.faults
            .unknownKeys({ routes: event.routes })
            .map((issue) => ({ ...issue, field: `events[${i}].${issue.field}` }))
        : [],
    );
  }

  /** Starts `scenario` now (t = 0), replacing any running one; events at t = 0 apply at once. */
  load(scenario: Scenario): void {
    this.stop();
    if (scenario.clockSpeed !== undefined) this.target.clock.setSpeed(scenario.clockSpeed);
    const startedAt = this.target.clock.now();
    this.running = { timeline: new ScenarioTimeline(scenario), startedAt, nextAt: startedAt };
    this.sync();
  }

  /** Stops the scenario; faults its windows set are cleared, settings it changed stay. */
  stop(): void {
    if (!this.running) return;
    this.running = undefined;
    this.target.faults.clear();
  }

  /** Applies whatever became due. */
  sync(): void {
    const r = this.running;
    if (!r) return;
    const now = this.target.clock.now();
    if (now < r.nextAt) return;
    for (const action of r.timeline.advanceTo(now - r.startedAt)) this.apply(action);
    // A clock-speed event changes nothing here: the next moment is in emulated time either way.
    r.nextAt = r.startedAt + r.timeline.nextChangeAt();
  }

  readonly onRequest = (_request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    this.sync();
    done();
  };

  view(): Record<string, unknown> {
    this.sync();
    const r = this.running;
    if (!r) return { running: false };
    const t = this.target.clock.now() - r.startedAt;
    const states = r.timeline.states(t);
    const { name, description, events } = r.timeline.scenario;
    return {
      running: true,
      name,
      description: description ?? null,
      startedAt: r.startedAt,
      elapsedMs: t,
      finished: r.timeline.nextChangeAt() === Infinity,
      events: events.map((e, index) => ({ index, at: e.at, do: e.do, state: states[index] })),
    };
  }

  private apply(action: TimelineAction): void {
    const t = this.target;
    if (action.kind === 'faults') {
      t.faults.releaseHung();
      t.faults.set({ routes: action.routes });
      return;
    }
    const e = action.event;
    switch (e.do) {
      case 'taskSettings':
        t.tasks.settings = mergeTaskSettings(t.tasks.settings, e.settings);
        break;
      case 'failTasks':
        t.tasks.failNext(e.reason, e.count, e.operation);
        break;
      case 'batchSettings':
        t.batches.updateSettings(e.settings);
        break;
      case 'clockSpeed':
        t.clock.setSpeed(e.speed);
        break;
    }
  }
}
