// Everything the emulator holds, in one place, with the one operation that touches all of it: reset
// to the current fixtures (POST /_emulator/reset, POST /_emulator/fixtures).
import { DEFAULT_PATHS, formatIssues, type PlatformPaths, tryParse, type ValidationIssue } from '@platform-ops/client';
import { KeyRing } from './auth';
import { BatchStore, type BatchEnv } from './batches';
import { EmulatorClock } from './clock';
import { EmulatorConfigError, type EmulatorOptions } from './config';
import { Counters } from './counters';
import { FaultStore } from './faults';
import {
  DEMO_MEMBER_ID,
  DEMO_USER_ID,
  applyFixtures,
  fixtureProblems,
  type DecisionSettings,
  FixturesInputSchema,
  type Fixtures,
} from './fixtures';
import { defaultFixtures } from './fixtures-defaults';
import { IdGenerator } from './hash';
import { InstanceStore } from './instances';
import { EndpointStore } from './serverless-endpoints';
import { Accounts, type ChargeRecord } from './accounts';
import { RateLimiter } from './rate-limit';
import { RouteTable } from './routes';
import { ScenarioRunner } from './scenario/runner';
import { ScenarioSchema, type Scenario } from './scenario/schema';
import { CallbackSender } from './tasks/callbacks';
import { TaskStore } from './tasks/store';

export class EmulatorState {
  readonly paths: PlatformPaths = DEFAULT_PATHS;
  readonly clock: EmulatorClock;
  readonly ids = new IdGenerator();
  readonly routes = new RouteTable(this.paths);
  readonly counters = new Counters();
  readonly faults: FaultStore;
  readonly keys = new KeyRing();
  readonly accounts: Accounts;
  readonly limiter: RateLimiter;
  readonly tasks: TaskStore;
  readonly callbacks: CallbackSender;
  readonly instances: InstanceStore;
  readonly endpoints: EndpointStore;
  readonly batchEnv: BatchEnv;
  readonly batches: BatchStore;
  readonly scenario: ScenarioRunner;
  /** The scenario of the options, checked; started by applyStartScenario. */
  private readonly startScenario?: Scenario;
  /** The built-in fixtures (with this run's API keys): DELETE /_emulator/fixtures goes back to them. */
  readonly builtIn: Fixtures;
  fixtures: Fixtures;
  decision: DecisionSettings;
  /** Base of output URLs; set once the server listens. */
  publicUrl = '';

  constructor(readonly options: EmulatorOptions) {
    this.clock = new EmulatorClock(options.clockSpeed);
    this.faults = new FaultStore(this.routes, this.counters);
    this.accounts = new Accounts(() => this.clock.now());
    this.limiter = new RateLimiter(this.clock, this.counters);
    this.tasks = new TaskStore(this.clock, this.accounts, this.ids, () => this.publicUrl);
    this.callbacks = new CallbackSender(this.clock, this.tasks);
    this.instances = new InstanceStore(this.clock);
    this.endpoints = new EndpointStore(this.clock, this.accounts);
    this.batchEnv = {
      now: () => this.clock.now(),
      newId: (prefix) => this.ids.next(prefix),
      charge: (input) => {
        this.accounts.charge(input);
      },
    };
    this.batches = new BatchStore(this.batchEnv);
    this.scenario = new ScenarioRunner(this);
    this.builtIn = defaultFixtures(options.apiKeys);
    this.fixtures = this.builtIn;
    this.decision = this.builtIn.decision;
    if (options.fixtures) {
      const issues = this.setFixtures(options.fixtures);
      if (issues.length > 0) throw new EmulatorConfigError(`fixtures: ${formatIssues(issues)}`);
    }
    const unknown = this.faults.unknownKeys(options.faults);
    if (unknown.length > 0) throw new EmulatorConfigError(`faults: ${formatIssues(unknown)}`);
    if (options.scenario) {
      const checked = this.checkScenario(options.scenario);
      if (!checked.ok) throw new EmulatorConfigError(`scenario: ${formatIssues(checked.issues)}`);
      this.startScenario = checked.value;
    }
    this.reset();
  }

  /**
   * Checks a fixtures document and makes it current (sections it gives replace the built-in ones);
   * returns the problems instead, each naming its field. The caller resets to apply it.
   */
  setFixtures(input: unknown): ValidationIssue[] {
    const parsed = tryParse(FixturesInputSchema, input);
    if (!parsed.ok) return parsed.issues;
    const next = applyFixtures(this.builtIn, parsed.value);
    const problems = fixtureProblems(next);
    if (problems.length > 0) return problems;
    this.fixtures = next;
    return [];
  }

  /**
   * Everything back to the current fixtures: budgets, charges (history only), keys, instances, quotas
   * and their windows, tasks, batches, settings, counters; faults cleared; the clock back to its start
   * speed. Emulated time does not go back: charges and expiries stay ordered.
   */
  reset(): void {
    const f = this.fixtures;
    this.scenario.stop();
    this.faults.releaseHung();
    this.faults.clear();
    if (this.clock.speed !== this.options.clockSpeed) this.clock.setSpeed(this.options.clockSpeed);
    this.keys.load(f.apiKeys);
    this.accounts.load(
      f.members,
      f.historicalCharges.map((h) => this.historyRecord(h)),
    );
    this.limiter.load(
      f.quotas.map((q) => ({ ...q, quotaItems: q.quotaItems.map((i) => ({ ...i })) })),
      f.rateLimits,
    );
    this.instances.load(f.instances, f.instanceSettings);
    this.endpoints.load(f.endpointSettings);
    this.tasks.clear();
    this.callbacks.reset();
    this.tasks.settings = f.tasks;
    this.decision = { ...f.decision };
    this.batches.reset();
    this.counters.reset();
  }

  /** Applies the start-up faults (EMULATOR_FAULTS); only at start: reset clears faults. */
  applyStartFaults(): void {
    this.faults.set(this.options.faults);
  }

  /** Starts the start-up scenario (EMULATOR_SCENARIO, --scenario); only at start: reset stops it. */
  applyStartScenario(): void {
    if (this.startScenario) this.scenario.load(this.startScenario);
  }

  /** A scenario document checked against its schema and this emulator's route keys. */
  checkScenario(input: unknown): { ok: true; value: Scenario } | { ok: false; issues: ValidationIssue[] } {
    const parsed = tryParse(ScenarioSchema, input);
    if (!parsed.ok) return parsed;
    const issues = this.scenario.problems(parsed.value);
    return issues.length > 0 ? { ok: false, issues } : parsed;
  }

  private historyRecord(h: Fixtures['historicalCharges'][number]): ChargeRecord {
    const caller = this.keys.callerById(h.apiKeyId) ?? {
      apiKeyId: h.apiKeyId,
      apiKeyName: h.apiKeyId,
      apiKeyMask: '****',
      userId: DEMO_USER_ID,
      memberId: DEMO_MEMBER_ID,
    };
    return {
      caller,
      productId: h.productId,
      productName: h.productName,
      category: h.category,
      amount: h.amount,
      usage: h.usage,
      at: h.at * 1000,
      debited: false,
    };
  }
}
