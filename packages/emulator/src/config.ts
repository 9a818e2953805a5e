// The emulator's configuration: options for startEmulator() and their reading from the environment,
// checked with zod. API keys are only ever shown masked (maskKey) outside this process's memory.
import { z } from 'zod';
import { formatIssues, parseOrThrow, type ValidationIssue } from '@platform-ops/client';
import { FaultConfigSchema, type FaultConfig } from './faults';
import { FixturesInputSchema, type FixturesInput } from './fixtures';
import { readJsonFile } from './json-file';
import { ScenarioSchema, type ScenarioInput } from './scenario/schema';

/** The one key a default emulator accepts (documented in docs/emulator.md). Not a secret. */
export const DEV_API_KEY = 'emu-dev-key-0000000000000000';

const DEFAULT_PORT = 8787;
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
  /** A scenario started with the emulator (same shape as POST /_emulator/scenario); t = 0 is the start. */
  scenario?: ScenarioInput;
  /** A file every request and answer is appended to, one JSON line each (the Authorization header redacted). */
  recordFile?: string;
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
  EMULATOR_SCENARIO: z.string().min(1).optional(),
  EMULATOR_RECORD: z.string().min(1).optional(),
});
type EnvName = keyof typeof EnvSchema.shape;

/**
 * CLI flags (`platform-ops-emulator --port 0`, `platform-ops emulator --port 0`): each stands for one
 * variable and wins over it.
 */
export const EMULATOR_FLAGS = {
  port: 'EMULATOR_PORT',
  host: 'EMULATOR_HOST',
  clockSpeed: 'EMULATOR_CLOCK_SPEED',
  fixtures: 'EMULATOR_FIXTURES',
  scenario: 'EMULATOR_SCENARIO',
  record: 'EMULATOR_RECORD',
} as const satisfies Record<string, EnvName>;
export type EmulatorFlags = Partial<Record<keyof typeof EMULATOR_FLAGS, string>>;

export const flagName = (flag: string): string => `--${flag.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

/**
 * Reads EMULATOR_* variables, and the CLI's flags over them. Throws an EmulatorConfigError naming each
 * bad variable (or flag) and rule.
 */
export function loadEmulatorConfig(env: NodeJS.ProcessEnv = process.env, flags: EmulatorFlags = {}): EmulatorOptions {
  // Empty variables count as unset, as shells and .env files often leave them.
  const present: Record<string, string> = Object.fromEntries(
    Object.entries(env).filter(
      (e): e is [string, string] => e[0].startsWith('EMULATOR_') && e[1] !== undefined && e[1] !== '',
    ),
  );
  // An error names what the user typed: the flag when a flag gave the value.
  const label = new Map<string, string>();
  for (const [flag, name] of Object.entries(EMULATOR_FLAGS)) {
    const value = flags[flag as keyof EmulatorFlags];
    if (value === undefined) continue;
    present[name] = value;
    label.set(name, flagName(flag));
  }
  const relabel = (issues: ValidationIssue[]) =>
    issues.map((i) => {
      const [head, ...rest] = i.field.split(/(?=[.[])/);
      return { ...i, field: [label.get(head) ?? head, ...rest].join('') };
    });
  // zod issues never carry the input value, so a key cannot leak through this message.
  const e = parseOrThrow(
    EnvSchema,
    present,
    (issues) => new EmulatorConfigError(`Emulator configuration: ${formatIssues(relabel(issues))}`),
  );
  const source = (name: EnvName) => label.get(name) ?? name;
  return {
    port: e.EMULATOR_PORT,
    host: e.EMULATOR_HOST,
    apiKeys: e.EMULATOR_API_KEYS,
    clockSpeed: e.EMULATOR_CLOCK_SPEED,
    faults: e.EMULATOR_FAULTS ?? { routes: {} },
    fixtures: e.EMULATOR_FIXTURES
      ? readCheckedFile(source('EMULATOR_FIXTURES'), e.EMULATOR_FIXTURES, FixturesInputSchema)
      : undefined,
    publicUrl: e.EMULATOR_PUBLIC_URL?.replace(/\/+$/, ''),
    adminToken: e.EMULATOR_ADMIN_TOKEN,
    logger: e.EMULATOR_LOG === '1' || e.EMULATOR_LOG === 'true',
    scenario: e.EMULATOR_SCENARIO
      ? readCheckedFile(source('EMULATOR_SCENARIO'), e.EMULATOR_SCENARIO, ScenarioSchema)
      : undefined,
    recordFile: e.EMULATOR_RECORD,
  };
}

/** Reads and checks a JSON file a variable or flag names (fixtures, a scenario). */
function readCheckedFile<S extends z.ZodType>(source: string, path: string, schema: S): z.output<S> {
  const raw = readJsonFile(path, (why) => new EmulatorConfigError(`${source}: ${why}`));
  return parseOrThrow(schema, raw, (issues) => new EmulatorConfigError(`${source} ${path}: ${formatIssues(issues)}`));
}
