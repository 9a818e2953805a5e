// A typed client of the emulator's admin API over HTTP, for test suites that drive an emulator they
// did not start in their own process (a jest global setup starts it; test files run elsewhere).
// Refusals throw with the emulator's message, which names the field and the rule; the admin token is
// never part of one.
import type { CountersView } from './counters';
import type { FaultConfig } from './faults';
import type { EndpointSettings, EndpointSettingsUpdate, FixturesInput } from './fixtures';
import type { EndpointAdminView } from './serverless-endpoints';
import { ADMIN_PREFIX } from './routes';
import type { ScenarioInput } from './scenario/schema';

export interface ClockView {
  /** Emulated Unix ms. */
  now: number;
  iso: string;
  speed: number;
}

export class EmulatorAdminError extends Error {
  override readonly name = 'EmulatorAdminError';
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

export class EmulatorAdmin {
  /** `url`: the emulator's base URL (http://host:port); `token`: its EMULATOR_ADMIN_TOKEN, if set. */
  constructor(
    readonly url: string,
    private readonly token?: string,
  ) {}

  /** Any admin call (`path` under /_emulator); its JSON answer. */
  async request<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = {};
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    const res = await fetch(`${this.url}${ADMIN_PREFIX}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new EmulatorAdminError(`admin ${method} ${path}: HTTP ${res.status} ${text}`, res.status);
    return (text ? JSON.parse(text) : undefined) as T;
  }

  /** Everything back to the current fixtures; faults cleared, scenario stopped, counters zeroed. */
  reset = () => this.request<{ ok: true }>('POST', '/reset');
  /** Replaces sections of the built-in fixtures, and resets to them. */
  loadFixtures = (fixtures: FixturesInput) => this.request<{ ok: true }>('POST', '/fixtures', fixtures);
  /** Back to the built-in fixtures, and resets. */
  builtInFixtures = () => this.request<{ ok: true }>('DELETE', '/fixtures');
  /** Replaces every fault. */
  setFaults = (config: FaultConfig) => this.request<FaultConfig>('PUT', '/faults', config);
  clearFaults = () => this.request<FaultConfig>('DELETE', '/faults');
  counters = () => this.request<CountersView>('GET', '/counters');
  /** Every serverless endpoint since the reset, gone ones too: its state, what it billed, its workers billing now. */
  endpoints = () => this.request<{ endpoints: EndpointAdminView[]; settings: EndpointSettings }>('GET', '/endpoints');
  /** Changes some endpoint settings (phase lengths, quota, limit ranges), keeping the rest. */
  setEndpointSettings = (settings: EndpointSettingsUpdate) =>
    this.request<EndpointSettings>('PUT', '/endpoints/settings', settings);
  resetCounters = () => this.request<CountersView>('POST', '/counters/reset');
  clock = () => this.request<ClockView>('GET', '/clock');
  setClockSpeed = (speed: number) => this.request<ClockView>('PUT', '/clock', { speed });
  advanceClock = (ms: number) => this.request<ClockView>('POST', '/clock/advance', { ms });
  /** Starts a scenario now (t = 0), replacing a running one. */
  loadScenario = (scenario: ScenarioInput) => this.request<Record<string, unknown>>('POST', '/scenario', scenario);
  scenario = () => this.request<Record<string, unknown>>('GET', '/scenario');
  stopScenario = () => this.request<Record<string, unknown>>('DELETE', '/scenario');
}
