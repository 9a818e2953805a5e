// Starts a real emulator on a free port for a test file, with a client pointed at it.
import { randomUUID } from 'node:crypto';
import { PlatformClient } from '../../src/platform-client/client';
import type { PlatformConfig } from '../../src/platform-client/config';
import { DEFAULT_PATHS } from '@platform-ops/client';
import type { TransportOptions } from '../../src/platform-client/transport';
import { DEV_API_KEY, EmulatorAdmin, startEmulator } from '@platform-ops/emulator';

export interface TestEmulator {
  url: string;
  key: string;
  config(overrides?: Partial<PlatformConfig>): PlatformConfig;
  client(overrides?: Partial<PlatformConfig>, options?: TransportOptions): PlatformClient;
  /** Calls the admin API and returns its JSON answer; throws on a non-2xx status. */
  admin<T = unknown>(method: string, path: string, body?: unknown): Promise<T>;
  /**
   * A new member with `remaining` budget (1/10000 USD), paying for everything the dev key does (the
   * emulator charges the key's member). Replaces the fixtures' members and keys, and resets.
   */
  freshMember(remaining: number | null): Promise<string>;
  /** A member's budget as the emulator keeps it. */
  member(memberId: string): Promise<{ id: string; remaining: number | null; spent: number }>;
  /** A raw platform call with the dev key, for checks the client would refuse to send. */
  raw(method: string, path: string, init?: { json?: unknown; query?: Record<string, string> }): Promise<Response>;
  close(): Promise<void>;
}

/** Calls the emulator's admin API and returns its JSON answer; throws on a non-2xx status. */
export function emulatorAdmin<T = unknown>(url: string, method: string, path: string, body?: unknown): Promise<T> {
  return new EmulatorAdmin(url).request<T>(method, path, body);
}

export async function startTestEmulator(
  options: { clockSpeed?: number; recordFile?: string } = {},
): Promise<TestEmulator> {
  const emulator = await startEmulator({
    port: 0,
    host: '127.0.0.1',
    clockSpeed: options.clockSpeed ?? 1,
    recordFile: options.recordFile,
  });
  const url = emulator.url;
  const config = (overrides: Partial<PlatformConfig> = {}): PlatformConfig => ({
    baseUrl: url,
    apiKey: DEV_API_KEY,
    timeoutMs: 5_000,
    paths: { ...DEFAULT_PATHS },
    billProductNameParam: 'productName',
    ...overrides,
  });
  const admin = <T>(method: string, path: string, body?: unknown) => emulatorAdmin<T>(url, method, path, body);
  return {
    url,
    key: DEV_API_KEY,
    config,
    client: (overrides, opts) => new PlatformClient(config(overrides), opts),
    admin,
    async freshMember(remaining) {
      const memberId = `member-${randomUUID().slice(0, 8)}`;
      await admin('POST', '/fixtures', {
        members: [{ id: memberId, name: memberId, remaining }],
        apiKeys: [{ key: DEV_API_KEY, id: `key-${memberId}`, name: memberId, userId: `user-${memberId}`, memberId }],
      });
      return memberId;
    },
    async member(memberId) {
      const { members } = await admin<{ members: { id: string; remaining: number | null; spent: number }[] }>(
        'GET',
        '/members',
      );
      const found = members.find((m) => m.id === memberId);
      if (!found) throw new Error(`the emulator has no member ${memberId}`);
      return found;
    },
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
