// Drives an emulator over real HTTP with the global fetch (never the platform client: the emulator is
// tested as a server in its own right).
import { DEV_API_KEY } from '../src/config';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../src/server';

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed body; undefined when it is not JSON. */
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

interface CallOptions {
  json?: unknown;
  query?: Record<string, string | number | boolean>;
  /** null sends no Authorization header. */
  key?: string | null;
  signal?: AbortSignal;
}

export interface Emu {
  url: string;
  running: RunningEmulator;
  call(method: string, path: string, opts?: CallOptions): Promise<Answer>;
  /** Admin call; throws on a non-2xx answer. */
  admin(method: string, path: string, body?: unknown): Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** Freezes emulated time (speed ~0), so only advance() moves it: state checks become exact. */
  freeze(): Promise<void>;
  advance(ms: number): Promise<void>;
  close(): Promise<void>;
}

export async function startEmu(opts: Partial<EmulatorOptions> = {}): Promise<Emu> {
  const running = await startEmulator({ port: 0, host: '127.0.0.1', clockSpeed: 100, ...opts });
  const url = running.url;
  const call = async (method: string, path: string, o: CallOptions = {}): Promise<Answer> => {
    const qs = o.query
      ? `?${new URLSearchParams(Object.entries(o.query).map(([k, v]): [string, string] => [k, String(v)])).toString()}`
      : '';
    const headers: Record<string, string> = {};
    const key = o.key === undefined ? DEV_API_KEY : o.key;
    if (key !== null) headers.authorization = `Bearer ${key}`;
    if (o.json !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${url}${path}${qs}`, {
      method,
      headers,
      body: o.json === undefined ? undefined : JSON.stringify(o.json),
      signal: o.signal,
    });
    const text = await res.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, json };
  };
  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await call(method, `/_emulator${path}`, { json: body, key: null });
    if (res.status < 200 || res.status >= 300) throw new Error(`admin ${method} ${path}: ${res.status} ${res.text}`);
    return res.json; // eslint-disable-line @typescript-eslint/no-unsafe-return
  };
  return {
    url,
    running,
    call,
    admin,
    freeze: async () => {
      await admin('PUT', '/clock', { speed: 1e-6 });
    },
    advance: async (ms: number) => {
      await admin('POST', '/clock/advance', { ms });
    },
    close: () => running.close(),
  };
}

/**
 * One emulator for a whole test file: started before its first test, reset after each test and closed
 * after the last. The handle works inside the file's tests and hooks.
 */
export function emulatorForFile(): Emu {
  let started: Emu | undefined;
  beforeAll(async () => {
    started = await startEmu();
  });
  afterAll(() => started?.close());
  afterEach(() => started?.admin('POST', '/reset'));
  const emu = (): Emu => {
    if (!started) throw new Error('The emulator starts in beforeAll: use it inside a test.');
    return started;
  };
  return {
    get url() {
      return emu().url;
    },
    get running() {
      return emu().running;
    },
    call: (...args) => emu().call(...args),
    admin: (...args) => emu().admin(...args),
    freeze: () => emu().freeze(),
    advance: (ms) => emu().advance(ms),
    close: () => emu().close(),
  };
}

export const I2V = '/v3/async/vendor-v3.0-std-i2v';
export const T2V = '/v3/async/vendor-v3.0-pro-t2v';
export const TASK_RESULT = '/v3/async/task-result';

export { pngDataUrl } from '../../../test/helpers/images';

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
