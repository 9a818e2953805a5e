// Checks docker-compose.yml, the Dockerfile and .dockerignore without a Docker engine (there is none
// here or in CI). The Compose file goes through compose-go, the loader inside `docker compose`, via
// tools/compose-check, so it is validated the way `docker compose up` would validate it; what it
// wires is then checked against the code's own configuration: the same loaders the worker and the
// emulator run read the environment the file gives them.
import { execFile, type ExecFileException } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { z } from 'zod';
import {
  DEFAULT_PATHS,
  DEFAULT_TASK_QUEUE,
  loadKeyring,
  type PlatformPaths,
  SEARCH_ATTRIBUTE_DEFINITIONS,
} from '@platform-ops/client';
import { setUpSchemas } from '../../src/cluster/postgres';
import {
  DEFAULT_SERVER_PORTS,
  DYNAMIC_CONFIG_FILE,
  loadClusterSettings,
  POSTGRES_USER,
  serverEnv,
} from '../../src/devserver/server-config';
import { POSTGRES_MAJOR, TEMPORAL_SERVER_VERSION, TEMPORAL_UI_VERSION } from '../../src/devserver/versions';
import { loadArtifactSettings, loadTemporalSettings, loadWorkerSettings } from '../../src/config/settings';
import { loadPriceTable } from '../../src/operations/budgetGatedJob/activities-price';
import { DEV_API_KEY, HEALTH_PATH, loadEmulatorConfig } from '@platform-ops/emulator';
import { PlatformClient } from '../../src/platform-client/client';
import { pathEnvName } from '../../src/platform-client/config';
import { loadCodecServerSettings } from '../../src/codec/server';

const ROOT = path.resolve(__dirname, '..', '..');
const COMPOSE_FILE = path.join(ROOT, 'docker-compose.yml');
const TOOL_DIR = path.join(ROOT, 'tools', 'compose-check');
// Git-ignored; one folder per version of the tool's sources and Go, so a stale build is never used.
const CACHE_DIR = path.join(ROOT, '.cache', 'compose-check');

// The first run downloads compose-go and compiles it; later runs reuse the cached binary.
const BUILD_TIMEOUT_MS = 10 * 60_000;

// --- compose-check ---------------------------------------------------------------------------

interface ExecResult {
  code: number;
  stdout: string;
  stderr: string;
}

function run(file: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}) {
  return new Promise<ExecResult>((resolve, reject) => {
    execFile(
      file,
      args,
      { cwd: opts.cwd ?? ROOT, env: opts.env ?? process.env, timeout: opts.timeoutMs ?? 60_000, maxBuffer: 32 << 20 },
      (err: ExecFileException | null, stdout, stderr) => {
        if (err?.killed) {
          reject(new Error(`${file} ${args.join(' ')} did not finish in ${opts.timeoutMs ?? 60_000} ms`));
          return;
        }
        if (err && typeof err.code === 'string') {
          reject(err.code === 'ENOENT' ? new Error(`${file}: not found on PATH`) : err);
          return;
        }
        resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

/** Builds tools/compose-check once per version of its sources and of Go; returns the binary's path. */
async function composeCheckBinary(): Promise<string> {
  // Go is on every machine of this project's kind (the Temporal CLI is built with it too): its
  // absence is a broken machine, so this fails loudly instead of skipping.
  const version = await run('go', ['version']).catch((err: Error) => {
    throw new Error(
      `Go is required to validate docker-compose.yml with the Compose loader (tools/compose-check), ` +
        `but running \`go version\` failed: ${err.message}. Install Go 1.24 or later.`,
    );
  });
  const hash = createHash('sha256').update(version.stdout);
  for (const name of ['go.mod', 'go.sum', 'main.go']) hash.update(readFileSync(path.join(TOOL_DIR, name)));
  const dir = path.join(CACHE_DIR, hash.digest('hex').slice(0, 16));
  const binary = path.join(dir, 'compose-check');
  if (existsSync(binary)) return binary;

  mkdirSync(dir, { recursive: true });
  // Built under a temporary name and renamed, so a concurrent run never executes a half-written file.
  const partial = `${binary}.${process.pid}.partial`;
  // GOWORK=off: the tool is its own module whatever go.work a developer has above the project.
  // -mod=readonly (the default, made explicit): a go.sum out of date fails instead of being rewritten.
  const built = await run('go', ['build', '-mod=readonly', '-o', partial, '.'], {
    cwd: TOOL_DIR,
    env: { ...process.env, GOWORK: 'off', GOFLAGS: '-buildvcs=false' },
    timeoutMs: BUILD_TIMEOUT_MS,
  });
  if (built.code !== 0) throw new Error(`go build of tools/compose-check failed:\n${built.stderr}`);
  renameSync(partial, binary);
  return binary;
}

const PortSchema = z.object({
  target: z.number(),
  published: z.string().optional(),
  host_ip: z.string().optional(),
  protocol: z.string().optional(),
});
const ServiceSchema = z.object({
  image: z.string().optional(),
  build: z.object({ context: z.string(), dockerfile: z.string() }).optional(),
  command: z.array(z.string()).nullish(),
  entrypoint: z.array(z.string()).nullish(),
  environment: z.record(z.string(), z.string().nullable()).optional(),
  ports: z.array(PortSchema).optional(),
  depends_on: z.record(z.string(), z.object({ condition: z.string(), required: z.boolean().optional() })).optional(),
  healthcheck: z.object({ test: z.array(z.string()) }).optional(),
  volumes: z.array(z.object({ type: z.string(), source: z.string(), target: z.string() })).optional(),
  init: z.boolean().optional(),
  stop_grace_period: z.string().optional(),
  deploy: z.object({ replicas: z.number().optional() }).nullish(),
  network_mode: z.string().optional(),
});
const OutputSchema = z.object({
  project: z.object({ name: z.string(), services: z.record(z.string(), ServiceSchema) }),
  warnings: z.array(z.string()),
});
type ComposeOutput = z.infer<typeof OutputSchema>;
type Service = z.infer<typeof ServiceSchema>;

/**
 * The project as `docker compose config` would see it, given only these variables: neither this
 * process's environment nor a developer's .env can leak in.
 */
async function loadCompose(binary: string, vars: Record<string, string> = {}, envFiles: string[] = []) {
  const args = [
    ...Object.entries(vars).flatMap(([k, v]) => ['-e', `${k}=${v}`]),
    ...envFiles.flatMap((f) => ['-env-file', f]),
    COMPOSE_FILE,
  ];
  const result = await run(binary, args);
  if (result.code !== 0) throw new Error(`docker-compose.yml does not load:\n${result.stderr}`);
  return OutputSchema.parse(JSON.parse(result.stdout));
}

// --- the code's reading of the environment ------------------------------------------------------

type EnvLoader = (env: NodeJS.ProcessEnv) => unknown;

/** What the worker process reads at start (src/worker.ts runWorker). */
const WORKER_LOADERS: Record<string, EnvLoader> = {
  loadWorkerSettings,
  loadTemporalSettings,
  'PlatformClient.fromEnv': (env) => PlatformClient.fromEnv(env).config,
  loadArtifactSettings,
  loadPriceTable,
  loadKeyring: (env) => loadKeyring(env)?.ids,
};
/** What the emulator process reads at start. */
const EMULATOR_LOADERS: Record<string, EnvLoader> = { loadEmulatorConfig };
/** What the codec server reads at start (src/codec/main.ts). */
const CODEC_LOADERS: Record<string, EnvLoader> = {
  loadCodecServerSettings,
  loadKeyring: (env) => loadKeyring(env)?.ids,
};

// No setting accepts this value as it is or ignores it: numbers, URLs, enums, paths and JSON reject
// it, and free-form strings (keys, hosts, names) carry it into the result.
const PROBE_VALUE = 'probe value, valid for no setting';

function outcome(load: EnvLoader, env: NodeJS.ProcessEnv): string {
  try {
    return `ok ${JSON.stringify(load(env))}`;
  } catch (err) {
    return `error ${err instanceof Error ? err.message : String(err)}`;
  }
}

/**
 * The loaders that read `name`: those whose result (or error) changes when it is set. Asking the code
 * itself, rather than a list kept here, is what catches a renamed or removed variable.
 */
function readersOf(loaders: Record<string, EnvLoader>, base: NodeJS.ProcessEnv, name: string): string[] {
  const without = { ...base };
  delete without[name];
  return Object.entries(loaders)
    .filter(([, load]) => outcome(load, without) !== outcome(load, { ...without, [name]: PROBE_VALUE }))
    .map(([loaderName]) => loaderName);
}

/** A service's environment as its container gets it: variables left unset (null) are absent. */
function containerEnv(service: Service): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(service.environment ?? {}).filter((e): e is [string, string] => typeof e[1] === 'string'),
  );
}

function service(project: ComposeOutput, name: string): Service {
  const s = project.project.services[name];
  if (!s) throw new Error(`docker-compose.yml has no service ${name}`);
  return s;
}

function publishedPorts(
  s: Service,
): Array<{ target: number; published: string | undefined; hostIp: string | undefined }> {
  return (s.ports ?? []).map((p) => ({ target: p.target, published: p.published, hostIp: p.host_ip }));
}

// --- the Dockerfile -------------------------------------------------------------------------------

interface Instruction {
  keyword: string;
  args: string;
}
interface Stage {
  base: string;
  name: string | undefined;
  instructions: Instruction[];
}

/** Enough of the Dockerfile syntax for this file: comments, `\` continuations, FROM … AS …. */
function parseDockerfile(text: string): Stage[] {
  const logical: string[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!pending && (line === '' || line.startsWith('#'))) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    logical.push(pending + line);
    pending = '';
  }
  const stages: Stage[] = [];
  for (const line of logical) {
    const [, keyword = '', args = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    const upper = keyword.toUpperCase();
    if (upper === 'FROM') {
      const [base = '', as, name] = args.split(/\s+/);
      stages.push({ base, name: as?.toUpperCase() === 'AS' ? name : undefined, instructions: [] });
    } else if (stages.length === 0) {
      if (upper !== 'ARG') throw new Error(`Dockerfile: ${keyword} before the first FROM`);
    } else {
      stages[stages.length - 1].instructions.push({ keyword: upper, args });
    }
  }
  return stages;
}

/** The last instruction of a kind: the one that counts for CMD and ENTRYPOINT. */
function lastOf(stage: Stage, keyword: string): Instruction | undefined {
  return stage.instructions.filter((i) => i.keyword === keyword).pop();
}

/** JSON (exec) form only: the shell form would put a shell between docker's signals and node. */
function execForm(instruction: Instruction | undefined): string[] {
  if (!instruction) return [];
  let json: unknown;
  try {
    json = JSON.parse(instruction.args);
  } catch {
    json = undefined;
  }
  const parsed = z.array(z.string()).safeParse(json);
  if (!parsed.success) throw new Error(`${instruction.keyword} ${instruction.args} is not in exec (JSON) form`);
  return parsed.data;
}

interface Copy {
  from: string | undefined;
  sources: string[];
  dest: string;
}

function copies(stage: Stage): Copy[] {
  return stage.instructions
    .filter((i) => i.keyword === 'COPY')
    .map((i) => {
      const words = i.args.split(/\s+/);
      const from = words.find((w) => w.startsWith('--from='))?.slice('--from='.length);
      const paths = words.filter((w) => !w.startsWith('--'));
      return { from, sources: paths.slice(0, -1), dest: paths[paths.length - 1] };
    });
}

/** The stage's working directory after its instructions (WORKDIR may be relative to the previous). */
function workdir(stage: Stage): string {
  return stage.instructions
    .filter((i) => i.keyword === 'WORKDIR')
    .reduce((dir, i) => path.posix.resolve(dir, i.args), '/');
}

/** Project-relative paths of what `npm run build` emits, computed by TypeScript from tsconfig.build.json. */
function buildOutputs(): Set<string> {
  const host: ts.ParseConfigFileHost = {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    },
  };
  // The packages' builds first, then the service's (package.json "build").
  const configs = [
    'packages/client/tsconfig.build.json',
    'packages/emulator/tsconfig.build.json',
    'tsconfig.build.json',
  ];
  return new Set(
    configs.flatMap((name) => {
      const config = ts.getParsedCommandLineOfConfigFile(path.join(ROOT, name), {}, host);
      if (!config) throw new Error(`${name} does not parse`);
      return config.fileNames
        .flatMap((file) => ts.getOutputFileNames(config, file, false))
        .map((file) => path.relative(ROOT, file).split(path.sep).join('/'));
    }),
  );
}

function dockerignore(): string[] {
  return readFileSync(path.join(ROOT, '.dockerignore'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => l.replace(/^\/+/, '').replace(/\/+$/, ''));
}

/** True when a .dockerignore pattern (plain names and `*` globs, as this file uses) excludes `rel`. */
function ignored(patterns: string[], rel: string): boolean {
  const parts = rel.split('/');
  return patterns.some((p) => {
    if (p.startsWith('!')) return false;
    const re = new RegExp(`^${p.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`);
    // A pattern naming a folder excludes everything under it.
    return parts.some((_, i) => re.test(parts.slice(0, i + 1).join('/')));
  });
}

// --- the tests ------------------------------------------------------------------------------------

const WORKER = 'worker';
const EMULATOR = 'emulator';
const CODEC = 'codec';
const SERVICES = [
  'postgresql',
  'temporal-schema',
  'temporal',
  'temporal-ui',
  'search-attributes',
  EMULATOR,
  WORKER,
  CODEC,
];

let binary: string;
let compose: ComposeOutput;

beforeAll(async () => {
  binary = await composeCheckBinary();
  compose = await loadCompose(binary);
}, BUILD_TIMEOUT_MS + 60_000);

describe('docker-compose.yml', () => {
  test('loads with the Compose loader, with no warning (e.g. a variable without a default)', () => {
    expect(compose.project.name).toBe('platform-ops');
    expect(compose.warnings).toEqual([]);
  });

  test('has the stack’s services; the worker and the emulator build from the project’s Dockerfile', () => {
    expect(Object.keys(compose.project.services).sort()).toEqual([...SERVICES].sort());
    for (const name of [WORKER, EMULATOR, CODEC]) {
      expect(service(compose, name).build).toEqual({ context: ROOT, dockerfile: 'Dockerfile' });
    }
    // Every other image is pinned to a version: `latest` or no tag would change under the user.
    for (const [name, s] of Object.entries(compose.project.services)) {
      if (s.build) continue;
      expect({ name, image: s.image }).toEqual({ name, image: expect.stringMatching(/^[^:]+:\d[\w.-]*$/) });
    }
  });

  test.each([
    [WORKER, WORKER_LOADERS],
    [EMULATOR, EMULATOR_LOADERS],
    [CODEC, CODEC_LOADERS],
  ])('every variable the %s service sets is one its code reads', (name, loaders) => {
    const s = service(compose, name);
    const base = containerEnv(s);
    const unread = Object.keys(s.environment ?? {}).filter((v) => readersOf(loaders, base, v).length === 0);
    expect(unread).toEqual([]);
  });

  test('PLATFORM_PATH_* variables name real paths', () => {
    const known = new Set((Object.keys(DEFAULT_PATHS) as Array<keyof PlatformPaths>).map(pathEnvName));
    const names = Object.keys(service(compose, WORKER).environment ?? {}).filter((v) => v.startsWith('PLATFORM_PATH_'));
    expect(names.filter((v) => !known.has(v))).toEqual([]);
  });

  test('the worker reaches the local Temporal server, the emulator and its task queue', () => {
    const worker = service(compose, WORKER);
    const env = containerEnv(worker);
    for (const required of ['TEMPORAL_ADDRESS', 'PLATFORM_BASE_URL', 'PLATFORM_API_KEY']) {
      expect({ required, value: env[required] }).toEqual({ required, value: expect.any(String) });
    }
    // Read through the worker's own loaders: what it would do with this environment.
    const temporal = loadTemporalSettings(env);
    expect(temporal.address).toBe('temporal:7233');
    expect(temporal.addressConfigured).toBe(true);
    expect(temporal.taskQueue).toBe(DEFAULT_TASK_QUEUE);
    expect(loadWorkerSettings(env)).toBeDefined();

    const emulator = loadEmulatorConfig(containerEnv(service(compose, EMULATOR)));
    const platform = PlatformClient.fromEnv(env).config;
    expect(platform.baseUrl).toBe(`http://${EMULATOR}:${emulator.port}`);
    // The emulator's public dev key (not a secret) on both sides, so the default stack works as is.
    expect(platform.apiKey).toBe(DEV_API_KEY);
    expect(emulator.apiKeys).toContain(platform.apiKey);

    expect(worker.depends_on).toEqual({
      temporal: { condition: 'service_healthy', required: true },
      'search-attributes': { condition: 'service_completed_successfully', required: true },
      [EMULATOR]: { condition: 'service_healthy', required: true },
    });
  });

  test('the workers have time to drain before docker kills them, and publish their metrics ports', () => {
    const worker = service(compose, WORKER);
    const settings = loadWorkerSettings(containerEnv(worker));
    expect(worker.init).toBe(true);
    expect(parseDurationSeconds(worker.stop_grace_period)).toBeGreaterThan(settings.WORKER_SHUTDOWN_GRACE_SECONDS);
    expect(settings.METRICS_PORT).toEqual(expect.any(Number));
    expect(publishedPorts(worker)).toEqual([
      // One host port per replica.
      {
        target: settings.METRICS_PORT,
        published: `${settings.METRICS_PORT}-${settings.METRICS_PORT! + Number(worker.deploy?.replicas) - 1}`,
        hostIp: '127.0.0.1',
      },
    ]);
  });

  test('the emulator listens on its published port, on all interfaces, health-checked on its health route', () => {
    const emulatorService = service(compose, EMULATOR);
    const emulator = loadEmulatorConfig(containerEnv(emulatorService));
    expect(emulator.host).toBe('0.0.0.0');
    expect(publishedPorts(emulatorService)).toEqual([
      { target: emulator.port, published: String(emulator.port), hostIp: '127.0.0.1' },
    ]);
    // Output file URLs are fetched by the worker, inside the stack.
    expect(emulator.publicUrl).toBe(`http://${EMULATOR}:${emulator.port}`);
    expect(emulatorService.init).toBe(true);
    expect(emulatorService.healthcheck?.test.join(' ')).toContain(`http://127.0.0.1:${emulator.port}${HEALTH_PATH}`);
  });

  test('Temporal’s frontend is on 7233 and the Web UI on 8233, as with the local dev server', () => {
    expect(publishedPorts(service(compose, 'temporal'))).toEqual([
      { target: 7233, published: '7233', hostIp: '127.0.0.1' },
    ]);
    const ui = service(compose, 'temporal-ui');
    expect(publishedPorts(ui)).toEqual([{ target: 8080, published: '8233', hostIp: '127.0.0.1' }]);
    expect(ui.environment?.TEMPORAL_ADDRESS).toBe('temporal:7233');
  });

  test('the Web UI decodes through the codec server, on the loopback address as `npm run cluster` runs it', () => {
    const codecService = service(compose, CODEC);
    const codec = loadCodecServerSettings(containerEnv(codecService));
    // The browser calls it: on the host's own loopback address (host networking), so no token is needed.
    expect(codecService.network_mode).toBe('host');
    expect(codec).toMatchObject({ host: '127.0.0.1', auth: { mode: 'local' } });
    const ui = service(compose, 'temporal-ui');
    expect(ui.environment?.TEMPORAL_CODEC_ENDPOINT).toBe(`http://127.0.0.1:${codec.port}`);
    // The origins the UI is opened at (its published port) may call it.
    const uiPort = publishedPorts(ui)[0].published;
    expect(codec.corsOrigins).toEqual([`http://127.0.0.1:${uiPort}`, `http://localhost:${uiPort}`]);
    expect(codecService.init).toBe(true);
  });

  test('the setup job registers exactly SEARCH_ATTRIBUTE_DEFINITIONS, in the worker’s namespace', () => {
    const job = service(compose, 'search-attributes');
    const env = containerEnv(job);
    expect(parseSearchAttributes(env.SEARCH_ATTRIBUTES)).toEqual(SEARCH_ATTRIBUTE_DEFINITIONS);
    expect(env.TEMPORAL_ADDRESS).toBe('temporal:7233');
    const namespace = loadTemporalSettings(containerEnv(service(compose, WORKER))).namespace;
    expect(env.TEMPORAL_NAMESPACE).toBe(namespace);
    // It runs the script from deploy/, mounted read-only.
    const script = job.entrypoint?.[job.entrypoint.length - 1];
    const mount = (job.volumes ?? []).find((v) => v.target === script);
    expect(mount).toMatchObject({ type: 'bind', source: path.join(ROOT, 'deploy', 'register-search-attributes.sh') });
    expect(job.depends_on).toEqual({ temporal: { condition: 'service_healthy', required: true } });
  });

  test('secrets come from the environment or .env, and reach only the services that need them', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'compose-env-'));
    try {
      const envFile = path.join(dir, '.env');
      writeFileSync(
        envFile,
        [
          'PLATFORM_BASE_URL=https://platform.example.test',
          'PLATFORM_API_KEY=sk-from-dotenv-0000',
          'TEMPORAL_API_KEY=tk-from-dotenv-0000',
          'POSTGRES_PASSWORD=pw-from-dotenv',
          'EMULATOR_ADMIN_TOKEN=admin-from-dotenv',
          `PAYLOAD_KEYS=k1:${Buffer.alloc(32, 7).toString('base64')}`,
        ].join('\n'),
      );
      // The shell wins over .env, as with docker compose.
      const loaded = await loadCompose(binary, { PLATFORM_API_KEY: 'sk-from-shell-0000' }, [envFile]);
      expect(loaded.warnings).toEqual([]);
      const worker = containerEnv(service(loaded, WORKER));
      expect(worker.PLATFORM_API_KEY).toBe('sk-from-shell-0000');
      expect(worker.PLATFORM_BASE_URL).toBe('https://platform.example.test');
      expect(loadTemporalSettings(worker).connectionOptions.apiKey).toBe('tk-from-dotenv-0000');
      expect(service(loaded, 'postgresql').environment?.POSTGRES_PASSWORD).toBe('pw-from-dotenv');
      expect(service(loaded, 'temporal').environment?.POSTGRES_PWD).toBe('pw-from-dotenv');
      expect(loadEmulatorConfig(containerEnv(service(loaded, EMULATOR))).adminToken).toBe('admin-from-dotenv');
      // The workers and the codec server share the keyring; nothing else gets it.
      const keysOf = (name: string) => loadKeyring(containerEnv(service(loaded, name)))?.ids;
      expect([keysOf(WORKER), keysOf(CODEC)]).toEqual([['k1'], ['k1']]);
      const keyHolders = Object.entries(loaded.project.services)
        .filter(([, s]) => Object.values(containerEnv(s)).some((v) => v?.startsWith('k1:')))
        .map(([name]) => name);
      expect(keyHolders.sort()).toEqual([CODEC, WORKER]);
      // The platform key never reaches the emulator, nor the Temporal credentials anything but the worker.
      for (const [name, s] of Object.entries(loaded.project.services)) {
        const values = Object.values(containerEnv(s));
        if (name !== WORKER)
          expect({ name, values }).toEqual({
            name,
            values: expect.not.arrayContaining(['sk-from-shell-0000', 'tk-from-dotenv-0000']),
          });
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('deploy/register-search-attributes.sh', () => {
  const SCRIPT = path.join(ROOT, 'deploy', 'register-search-attributes.sh');

  // A stand-in for the Temporal CLI: logs each call; the namespace appears on the second look;
  // STUB_EXISTING lists Name=Type pairs the cluster has already, and STUB_ERROR_ON_EXISTING makes it
  // answer those with the error older servers give instead of the quiet success of 1.29.
  const STUB = `#!/bin/sh
echo "$*" >> "$STUB_DIR/calls"
case "$1 $2 $3" in
  "operator namespace create") ;;
  "operator namespace describe")
    case "$*" in *"--namespace callers"*) [ -n "$STUB_CALLERS_EXIST" ] || exit 1; exit 0 ;; esac
    n=$(cat "$STUB_DIR/describes" 2>/dev/null || echo 0)
    echo $((n + 1)) > "$STUB_DIR/describes"
    [ "$n" -ge 1 ] || { echo "Namespace not found" >&2; exit 1; } ;;
  "operator search-attribute create")
    while [ $# -gt 0 ]; do
      case "$1" in --name) name=$2; shift ;; --type) type=$2; shift ;; esac
      shift
    done
    for pair in $STUB_EXISTING; do
      [ "\${pair%%=*}" = "$name" ] || continue
      if [ "\${pair#*=}" != "$type" ]; then
        echo "Error: search attribute $name already exists and has different type \${pair#*=}" >&2; exit 1
      fi
      if [ -n "$STUB_ERROR_ON_EXISTING" ]; then
        echo "Error: unable to add search attributes: Search attribute $name already exists." >&2; exit 1
      fi
    done
    echo "Search attributes have been added" ;;
  "operator nexus endpoint")
    case "$4" in
      get) [ -n "$STUB_ENDPOINT_EXISTS" ] || { echo "Error: endpoint not found" >&2; exit 1; } ;;
      create) ;;
      *) echo "unexpected call: $*" >&2; exit 2 ;;
    esac ;;
  *) echo "unexpected call: $*" >&2; exit 2 ;;
esac
`;

  async function runScript(
    existing: string,
    errorOnExisting = false,
    have: { callers?: boolean; endpoint?: boolean } = {},
  ) {
    const dir = mkdtempSync(path.join(tmpdir(), 'register-sa-'));
    try {
      writeFileSync(path.join(dir, 'temporal'), STUB);
      chmodSync(path.join(dir, 'temporal'), 0o755);
      // The job's own environment from the Compose file, as its container gets it.
      const jobEnv = containerEnv(service(compose, 'search-attributes'));
      const result = await run('sh', [SCRIPT], {
        env: {
          ...jobEnv,
          PATH: `${dir}${path.delimiter}${process.env.PATH ?? ''}`,
          RETRY_SECONDS: '0',
          STUB_DIR: dir,
          STUB_EXISTING: existing,
          STUB_ERROR_ON_EXISTING: errorOnExisting ? '1' : '',
          STUB_CALLERS_EXIST: have.callers ? '1' : '',
          STUB_ENDPOINT_EXISTS: have.endpoint ? '1' : '',
        },
      });
      const log = path.join(dir, 'calls');
      const calls = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : [];
      return { ...result, calls };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  test('creates the namespace and waits for it, then creates each attribute with its type', async () => {
    const r = await runScript('');
    expect(r.code).toBe(0);
    const looks = r.calls.filter((c) => c.startsWith('operator namespace describe'));
    expect(looks.filter((c) => c.includes('--namespace default'))).toHaveLength(2);
    expect(r.calls.filter((c) => c.startsWith('operator namespace create'))).toEqual([
      'operator namespace create --address temporal:7233 --namespace default --retention 72h',
      'operator namespace create --address temporal:7233 --namespace callers --retention 24h',
    ]);
    const created = Object.fromEntries(
      r.calls
        .filter((c) => c.startsWith('operator search-attribute create'))
        .map((c) => {
          expect(c).toContain('--address temporal:7233 --namespace default');
          return [/--name (\S+)/.exec(c)![1], /--type (\S+)/.exec(c)![1]];
        }),
    );
    expect(created).toEqual(SEARCH_ATTRIBUTE_DEFINITIONS);
  });

  test('is idempotent: attributes that exist with the same type are fine, however the server says so', async () => {
    for (const errorOnExisting of [false, true]) {
      const r = await runScript('PlatformStatus=Keyword PlatformCostEstimate=Int', errorOnExisting);
      expect({ errorOnExisting, code: r.code, stderr: r.stderr }).toEqual({ errorOnExisting, code: 0, stderr: '' });
      expect(r.calls.filter((c) => c.includes('search-attribute create'))).toHaveLength(
        Object.keys(SEARCH_ATTRIBUTE_DEFINITIONS).length,
      );
    }
  });

  test("creates the Nexus endpoint to the worker's task queue and the callers' namespace, leaving existing ones", async () => {
    const created = await runScript('');
    expect(created.calls.filter((c) => c.startsWith('operator nexus endpoint create'))).toEqual([
      'operator nexus endpoint create --address temporal:7233 --name platform-ops --target-namespace default ' +
        '--target-task-queue platform-ops',
    ]);
    const kept = await runScript('', false, { callers: true, endpoint: true });
    expect(kept.code).toBe(0);
    const madeForNexus = (c: string) => c.includes('nexus endpoint create') || c.includes('--namespace callers --');
    expect(created.calls.filter(madeForNexus)).toHaveLength(2);
    expect(kept.calls.filter(madeForNexus)).toEqual([]);
    expect(kept.stdout).toContain('Nexus endpoint platform-ops exists');
  });

  test('fails when an attribute exists with another type', async () => {
    const r = await runScript('PlatformStatus=Int');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('PlatformStatus exists with another type');
  });
});

describe('the same topology as `npm run cluster`', () => {
  const image = (name: string) => service(compose, name).image;

  test('on the same versions: PostgreSQL, the Temporal server and its tools, the Web UI', () => {
    expect(image('postgresql')).toBe(`postgres:${POSTGRES_MAJOR}`);
    expect(image('temporal')).toBe(`temporalio/server:${TEMPORAL_SERVER_VERSION}`);
    for (const job of ['temporal-schema', 'search-attributes']) {
      expect({ job, image: image(job) }).toEqual({ job, image: `temporalio/admin-tools:${TEMPORAL_SERVER_VERSION}` });
    }
    expect(image('temporal-ui')).toBe(`temporalio/ui:${TEMPORAL_UI_VERSION}`);
  });

  test('the server gets the configuration the cluster gives its server', () => {
    const temporal = service(compose, 'temporal');
    const env = containerEnv(temporal);
    const cluster = serverEnv({ postgresPort: 5432, postgresPassword: 'pw', ports: DEFAULT_SERVER_PORTS });
    // Where things are differs (hosts, ports, the file's path); what they are must not.
    for (const name of ['DB', 'NUM_HISTORY_SHARDS', 'POSTGRES_USER']) {
      expect({ name, value: env[name] }).toEqual({ name, value: cluster[name] });
    }
    const placeOnly = [
      'PATH',
      'HOME',
      'LOG_LEVEL',
      ...Object.keys(cluster).filter((k) => k.endsWith('_PORT') && k !== 'DB_PORT'),
    ];
    const missing = Object.keys(cluster).filter((k) => !placeOnly.includes(k) && env[k] === undefined);
    expect(missing).toEqual([]);
    const mount = (temporal.volumes ?? []).find((v) => v.target === env.DYNAMIC_CONFIG_FILE_PATH);
    expect(mount).toMatchObject({ type: 'bind', source: path.join(ROOT, DYNAMIC_CONFIG_FILE) });
    expect(service(compose, 'postgresql').environment?.POSTGRES_USER).toBe(POSTGRES_USER);
  });

  test('as many workers as the cluster starts', () => {
    expect(service(compose, WORKER).deploy?.replicas).toBe(loadClusterSettings({}).CLUSTER_WORKERS);
  });

  test('the schema job runs the same SQL tool commands as the cluster', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'setup-schema-'));
    try {
      // A stand-in for temporal-sql-tool: logs what follows the connection flags; `create` finds the
      // database there already on the second run, as on a restart.
      const stub = path.join(dir, 'temporal-sql-tool');
      writeFileSync(
        stub,
        `#!/bin/sh\nwhile [ "$1" != "--db" ]; do shift; done\necho "$* pw=$SQL_PASSWORD" >> "$STUB_LOG"\n` +
          `if [ "$3" = create ] && [ -n "$STUB_EXISTS" ]; then echo "database already exists" >&2; exit 1; fi\n`,
      );
      chmodSync(stub, 0o755);
      const calls = (log: string) => readFileSync(path.join(dir, log), 'utf8').trim().split('\n');
      const job = containerEnv(service(compose, 'temporal-schema'));
      for (const exists of ['', '1']) {
        const composeLog = `compose${exists}`;
        const clusterLog = `cluster${exists}`;
        const r = await run('sh', [path.join(ROOT, 'deploy', 'setup-schema.sh')], {
          env: {
            ...job,
            PATH: `${dir}${path.delimiter}${process.env.PATH ?? ''}`,
            STUB_LOG: path.join(dir, composeLog),
            STUB_EXISTS: exists,
          },
        });
        expect({ exists, code: r.code, stderr: r.stderr }).toEqual({ exists, code: 0, stderr: '' });
        process.env.STUB_LOG = path.join(dir, clusterLog);
        process.env.STUB_EXISTS = exists;
        await setUpSchemas({
          sqlTool: stub,
          port: 5432,
          user: POSTGRES_USER,
          password: job.POSTGRES_PWD!,
          log: () => {},
        });
        expect(calls(composeLog)).toEqual(calls(clusterLog));
      }
      expect(calls('compose')).toContain(
        '--db temporal_visibility update-schema --schema-name postgresql/v12/visibility pw=temporal',
      );
    } finally {
      delete process.env.STUB_LOG;
      delete process.env.STUB_EXISTS;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('Dockerfile and .dockerignore', () => {
  const stages = parseDockerfile(readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8'));
  const runtime = stages[stages.length - 1];

  test('build on node:20 (Debian: the native Temporal core needs glibc) and install with npm ci', () => {
    for (const stage of stages) expect(stage.base).toMatch(/^node:20(\.[\d.]+)?-(bookworm|bullseye|trixie)(-slim)?$/);
    const runs = (stage: Stage) => stage.instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args);
    const build = stages.find((s) => copies(runtime).some((c) => c.from === s.name));
    expect(build).toBeDefined();
    expect(runs(build!).some((r) => /\bnpm ci\b/.test(r) && !r.includes('--omit=dev'))).toBe(true);
    // `npm run build` is what the project builds with (package.json's script).
    expect(runs(build!)).toContain('npm run build');
    expect(runs(runtime).some((r) => /\bnpm ci\b.*--omit=dev/.test(r))).toBe(true);
    // Not root at run time.
    expect(runtime.instructions.some((i) => i.keyword === 'USER' && i.args !== 'root')).toBe(true);
  });

  test('the image’s command and each service’s command run files the TypeScript build emits', () => {
    const outputs = buildOutputs();
    const build = stages.find((s) => copies(runtime).some((c) => c.from === s.name))!;
    const commands: Array<[string, string[]]> = [
      ['Dockerfile CMD', [...execForm(lastOf(runtime, 'ENTRYPOINT')), ...execForm(lastOf(runtime, 'CMD'))]],
      [WORKER, service(compose, WORKER).command ?? []],
      [EMULATOR, service(compose, EMULATOR).command ?? []],
      [CODEC, service(compose, CODEC).command ?? []],
    ];
    // The image runs the worker unless told otherwise.
    const expected: Record<string, string> = {
      'Dockerfile CMD': 'lib/src/worker.js',
      [WORKER]: 'lib/src/worker.js',
      [EMULATOR]: 'packages/emulator/lib/main.js',
      [CODEC]: 'lib/src/codec/main.js',
    };
    for (const [who, command] of commands) {
      expect({ who, runner: command[0] }).toEqual({ who, runner: 'node' });
      // Follow the script from the runtime stage back to the build stage through COPY --from.
      const script = path.posix.resolve(workdir(runtime), command[1] ?? '');
      const copy = copies(runtime).find(
        (c) => c.from === build.name && script.startsWith(`${path.posix.resolve(workdir(runtime), c.dest)}/`),
      );
      expect({ who, script, copiedFromBuild: Boolean(copy) }).toEqual({ who, script, copiedFromBuild: true });
      const inBuild = path.posix.join(
        path.posix.resolve(workdir(build), copy!.sources[0]),
        path.posix.relative(path.posix.resolve(workdir(runtime), copy!.dest), script),
      );
      const emitted = path.posix.relative(workdir(build), inBuild);
      expect({ who, emitted, built: outputs.has(emitted) }).toEqual({ who, emitted, built: true });
      expect({ who, emitted }).toEqual({ who, emitted: expected[who] });
    }
  });

  test('copies what the build reads, none of it excluded by .dockerignore', () => {
    const patterns = dockerignore();
    for (const required of ['node_modules', 'lib', '.temporal', '.git', '.env']) {
      expect({ required, ignored: ignored(patterns, required) }).toEqual({ required, ignored: true });
    }
    const sources = stages.flatMap((s) =>
      copies(s)
        .filter((c) => c.from === undefined)
        .flatMap((c) => c.sources),
    );
    for (const source of sources) {
      expect({ source, exists: existsSync(path.join(ROOT, source)), ignored: ignored(patterns, source) }).toEqual({
        source,
        exists: true,
        ignored: false,
      });
    }
    // tsconfig.build.json and what it extends, the lockfile, and the sources.
    expect(sources).toEqual(
      expect.arrayContaining(['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'src']),
    );
  });
});

// --- small helpers ----------------------------------------------------------------------------------

/** "Name=Type Name=Type" (the job's SEARCH_ATTRIBUTES) as a name → type record. */
function parseSearchAttributes(list: string | undefined): Record<string, string> {
  return Object.fromEntries(
    (list ?? '')
      .split(/\s+/)
      .filter(Boolean)
      .map((pair) => {
        const [name = '', type = ''] = pair.split('=');
        return [name, type];
      }),
  );
}

/** Compose durations as compose-go prints them: "30s", "1m30s". */
function parseDurationSeconds(text: string | undefined): number {
  const units: Record<string, number> = { h: 3600, m: 60, s: 1, ms: 0.001 };
  let total = 0;
  for (const [, n, unit] of (text ?? '').matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)) total += Number(n) * units[unit];
  return total;
}
