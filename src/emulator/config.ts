// The emulator's configuration: options for startEmulator() and their reading from the environment,
// checked with zod. API keys are only ever shown masked (maskKey) outside this process's memory.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { describeZodError, formatIssues } from '../platform/validation';
import { FaultConfigSchema, type FaultConfig } from './faults';
import { FixturesInputSchema, type FixturesInput } from './fixtures';

/** The one key a default emulator accepts (documented in docs/emulator.md). Not a secret. */
export const DEV_API_KEY = 'emu-dev-key-0000000000000000';

export const DEFAULT_PORT = 8787;
const DEFAULT_HOST = '127.0.0.1';

export interface EmulatorOptions {
  /** 0 picks a free port. */
  port: number;
  host: string;
  /** Bearer keys accepted; each maps to member-demo unless the fixtures' apiKeys say otherwise. */
  apiKeys: string[];
  /** Emulated milliseconds per real millisecond. */
  clockSpeed: number;
  /** Faults active from the start (same shape as PUT /_emulator/faults). */
  faults: FaultConfig;
  /** Replaces sections of the built-in fixtures (same shape as POST /_emulator/fixtures). */
  fixtures?: FixturesInput;
  /** Base of output file URLs; defaults to http://host:port once the port is known. */
  publicUrl?: string;
  /** When set, the admin API wants `Authorization: Bearer <adminToken>`. */
  adminToken?: string;
  /** Fastify's request logger; off by default so tests stay quiet. */
  logger: boolean;
}

export const DEFAULT_OPTIONS: EmulatorOptions = {
  port: DEFAULT_PORT,
  host: DEFAULT_HOST,
  apiKeys: [DEV_API_KEY],
  clockSpeed: 1,
  faults: { routes: {} },
  logger: false,
};

/** `emu-****0000`: enough to tell keys apart in bills and logs, never enough to use one. */
export function maskKey(key: string): string {
  if (key.length <= 8) return '****';
  return `${key.slice(0, 4)}****${key.slice(-4)}`;
}

export class EmulatorConfigError extends Error {
  override readonly name = 'EmulatorConfigError';
}

/** A JSON value from an env var, with the variable's name in the error instead of its content. */
const JsonText = (name: string) =>
  z.string().transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: `${name} must be valid JSON` });
      return z.NEVER;
    }
  });

const EnvSchema = z.object({
  EMULATOR_PORT: z.coerce.number().int().min(0).max(65_535).default(DEFAULT_PORT),
  EMULATOR_HOST: z.string().min(1).default(DEFAULT_HOST),
  EMULATOR_API_KEYS: z
    .string()
    .default(DEV_API_KEY)
    .transform((s) => s.split(',').map((k) => k.trim()))
    .pipe(
      z
        .array(z.string().min(8, { error: 'each key must be at least 8 characters long' }))
        .min(1, { error: 'must list at least one key' }),
    ),
  EMULATOR_CLOCK_SPEED: z.coerce.number().gt(0).max(1_000_000).default(1),
  EMULATOR_FAULTS: JsonText('EMULATOR_FAULTS').pipe(FaultConfigSchema).optional(),
  EMULATOR_FIXTURES: z.string().min(1).optional(),
  EMULATOR_PUBLIC_URL: z
    .string()
    .regex(/^https?:\/\/[^\s]+$/, { error: 'must be an http(s) URL' })
    .optional(),
  EMULATOR_ADMIN_TOKEN: z.string().min(8).optional(),
  EMULATOR_LOG: z.enum(['0', '1', 'true', 'false']).optional(),
});

/** Reads EMULATOR_* variables. Throws an EmulatorConfigError naming each bad variable and rule. */
export function loadEmulatorConfig(env: NodeJS.ProcessEnv = process.env): EmulatorOptions {
  // Empty variables count as unset, as shells and .env files often leave them.
  const present = Object.fromEntries(Object.entries(env).filter(([k, v]) => k.startsWith('EMULATOR_') && v !== ''));
  const parsed = EnvSchema.safeParse(present);
  // zod issues never carry the input value, so a key cannot leak through this message.
  if (!parsed.success)
    throw new EmulatorConfigError(`Emulator configuration: ${formatIssues(describeZodError(parsed.error))}`);
  const e = parsed.data;
  return {
    port: e.EMULATOR_PORT,
    host: e.EMULATOR_HOST,
    apiKeys: e.EMULATOR_API_KEYS,
    clockSpeed: e.EMULATOR_CLOCK_SPEED,
    faults: e.EMULATOR_FAULTS ?? { routes: {} },
    fixtures: e.EMULATOR_FIXTURES ? readFixturesFile(e.EMULATOR_FIXTURES) : undefined,
    publicUrl: e.EMULATOR_PUBLIC_URL?.replace(/\/+$/, ''),
    adminToken: e.EMULATOR_ADMIN_TOKEN,
    logger: e.EMULATOR_LOG === '1' || e.EMULATOR_LOG === 'true',
  };
}

/** Reads and checks a fixtures JSON file (EMULATOR_FIXTURES). */
function readFixturesFile(path: string): FixturesInput {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new EmulatorConfigError(`EMULATOR_FIXTURES: cannot read ${path} as JSON (${(err as Error).message})`);
  }
  const parsed = FixturesInputSchema.safeParse(raw);
  if (!parsed.success) {
    throw new EmulatorConfigError(`EMULATOR_FIXTURES ${path}: ${formatIssues(describeZodError(parsed.error))}`);
  }
  return parsed.data;
}
