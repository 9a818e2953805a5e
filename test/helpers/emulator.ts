// Starts a real emulator on a free port for a test file, with a client pointed at it.
import { DEFAULT_PATHS, PlatformClient, type PlatformConfig } from '../../src/platform';
import type { TransportOptions } from '../../src/platform/transport';
import { DEV_API_KEY } from '../../src/emulator/config';
import { startEmulator } from '../../src/emulator/server';

export interface TestEmulator {
  url: string;
  key: string;
  config(overrides?: Partial<PlatformConfig>): PlatformConfig;
  client(overrides?: Partial<PlatformConfig>, options?: TransportOptions): PlatformClient;
  /** Calls the admin API and returns its JSON answer; throws on a non-2xx status. */
  admin<T = unknown>(method: string, path: string, body?: unknown): Promise<T>;
  /** A raw platform call with the dev key, for checks the client would refuse to send. */
  raw(method: string, path: string, init?: { json?: unknown; query?: Record<string, string> }): Promise<Response>;
  close(): Promise<void>;
}

/** Calls the emulator's admin API and returns its JSON answer; throws on a non-2xx status. */
export async function emulatorAdmin<T = unknown>(
  url: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<T> {
  const res = await fetch(`${url}/_emulator${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`admin ${method} ${path}: HTTP ${res.status} ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

export async function startTestEmulator(options: { clockSpeed?: number } = {}): Promise<TestEmulator> {
  const emulator = await startEmulator({ port: 0, host: '127.0.0.1', clockSpeed: options.clockSpeed ?? 1 });
  const url = emulator.url;
  const config = (overrides: Partial<PlatformConfig> = {}): PlatformConfig => ({
    baseUrl: url,
    apiKey: DEV_API_KEY,
    timeoutMs: 5_000,
    paths: { ...DEFAULT_PATHS },
    billProductNameParam: 'productName',
    ...overrides,
  });
  return {
    url,
    key: DEV_API_KEY,
    config,
    client: (overrides, opts) => new PlatformClient(config(overrides), opts),
    admin: (method, path, body) => emulatorAdmin(url, method, path, body),
    raw(method, path, init = {}) {
      const qs = init.query ? `?${new URLSearchParams(init.query).toString()}` : '';
      return fetch(`${url}${path}${qs}`, {
        method,
        headers: {
          authorization: `Bearer ${DEV_API_KEY}`,
          ...(init.json === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: init.json === undefined ? undefined : JSON.stringify(init.json),
      });
    },
    close: () => emulator.close(),
  };
}
