// `models`, `products`, `templates` and `quotas` (docs/rate-limits.md#seeing-it).
import type { Command } from 'commander';
import type { Client } from '@temporalio/client';
import { MODEL_REGISTRY, priorityClassOf, quotaTaskQueue, SearchAttributes } from '@platform-ops/client';
import { loadRateLimitSettings } from '../../config/settings';
import { PlatformClient } from '../../platform-client/client';
import { AdaptivePacing, resolveLimits, type QuotaLimit } from '../../ratelimit/pacing';
import { describeQuotaQueue, queuePartitions, type ServerPace } from '../../ratelimit/shared-pacing';
import { CliError, ExitCode, plural, tableRow, withStarter, type Out } from '../../cli/command';
import { DEV_API_KEY, HEALTH_PATH, loadEmulatorConfig } from '@platform-ops/emulator';

/** With no PLATFORM_* set, `npm start`'s emulator, said on stderr so the figures are not taken for live. */
async function platformOf(env: NodeJS.ProcessEnv): Promise<PlatformClient> {
  if (env.PLATFORM_BASE_URL !== undefined || env.PLATFORM_API_KEY !== undefined) return PlatformClient.fromEnv(env);
  const emulator = loadEmulatorConfig(env);
  const url = `http://127.0.0.1:${emulator.port}`;
  const answers = await fetch(`${url}${HEALTH_PATH}`, { signal: AbortSignal.timeout(2_000) }).then(
    (r) => r.ok,
    () => false,
  );
  if (!answers) {
    throw new CliError(
      `PLATFORM_BASE_URL and PLATFORM_API_KEY are not set, and no emulator answers at ${url}: set them to your ` +
        'platform, or run `npm start` (it runs the emulator there).',
      ExitCode.Unavailable,
    );
  }
  process.stderr.write(`Platform: the emulator at ${url} (PLATFORM_BASE_URL is not set).\n`);
  return PlatformClient.fromEnv({
    ...env,
    PLATFORM_BASE_URL: url,
    PLATFORM_API_KEY: emulator.apiKeys[0] ?? DEV_API_KEY,
  });
}

export function addPlatformCommands(program: Command, out: Out): void {
  program
    .command('models')
    .description("the model registry: what mediaGeneration's --model takes")
    .action(() => printModels(out));
  program
    .command('products')
    .description('the GPU and CPU products one can create an instance of (createInstance --product-id), every page')
    .option('--type <gpu|cpu>', "product type (the platform's default: gpu)")
    .option('--category <serverless|instance>', 'what the product is for')
    .option('--billing <postpaid|prepaid|spot>', 'billing method')
    .option('--regions <ids>', 'region ids, comma-separated')
    .option('--cpu-cores <n>', 'CPU core tier')
    .option('--memory-gb <n>', 'memory tier, GB')
    .option('--rootfs-gb <n>', 'root disk size, GB')
    .action((o: Record<string, string | undefined>) => printProducts(out, o));
  program
    .command('templates')
    .description('the instance templates (createInstance --template-id), every page')
    .option('--name <text>', 'search by template name')
    .option('--type <type>', 'template type')
    .option('--visibilities <list>', 'visibilities, comma-separated')
    .option('--member-ids <list>', 'creator member ids, comma-separated')
    .option('--mine', "only the user's community templates")
    .action((o: Record<string, string | boolean | undefined>) => printTemplates(out, o));
  program
    .command('quotas')
    .description("the platform's quotas of paid submits and the pace all workers share for each (docs/rate-limits.md)")
    .action(() => printQuotas(out));
}

function printModels(out: Out): void {
  const rows = MODEL_REGISTRY.list().map((m) => [
    m.model + (m.example ? ' (example)' : ''),
    m.path,
    m.outputs.join(','),
    m.builtIn ? `built-in ${m.builtIn}` : m.hasSchema ? 'JSON Schema' : 'bounds only',
    m.pricePerTask === undefined ? '-' : String(m.pricePerTask),
    m.quota ?? '-',
  ]);
  printTable(out, ['model', 'path (/v3/async/…)', 'outputs', 'body check', 'price/task', 'quota'], rows);
  const prefixes = MODEL_REGISTRY.passThroughPrefixes;
  out(
    prefixes.length > 0
      ? `Other models starting with ${prefixes.map((p) => JSON.stringify(p)).join(' or ')} are sent as they are (size and shape bounds only).`
      : 'Other models are refused (the registry allows no pass-through).',
  );
  out('Prices are in 1/10000 USD per task; entries marked (example) stand for models the spec names without a body.');
}

function printTable(out: Out, header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  for (const row of [header, ...rows]) out(tableRow(widths, row, '  ').trimEnd());
}

/** A bound on what one list command reads, whatever the platform answers. */
const MAX_ITEMS = 1_000;

/** The request's own check names the rule when it is no whole number. */
const count = (value: string | undefined) => (value === undefined ? undefined : Number(value));

async function printPages<T>(out: Out, items: AsyncIterable<T>, header: string[], row: (item: T) => string[]) {
  const rows: string[][] = [];
  for await (const item of items) {
    if (rows.length >= MAX_ITEMS) {
      out(`(only the first ${MAX_ITEMS} are shown)`);
      break;
    }
    rows.push(row(item).map((cell) => cell.replace(/\s+/g, ' ').slice(0, 60)));
  }
  printTable(out, header, rows);
  out(plural(rows.length, 'item'));
}

const text = (v: unknown): string => (typeof v === 'string' || typeof v === 'number' ? String(v) : '-');

async function printProducts(out: Out, o: Record<string, string | undefined>): Promise<void> {
  const platform = await platformOf(process.env);
  const filters = {
    productType: o.type as 'gpu' | 'cpu' | undefined,
    category: o.category as 'serverless' | 'instance' | undefined,
    billingMethod: o.billing as 'postpaid' | 'prepaid' | 'spot' | undefined,
    regionIds: o.regions,
    cpuCores: count(o.cpuCores),
    memoryGb: count(o.memoryGb),
    rootfsGb: count(o.rootfsGb),
  };
  const header = ['id', 'name', 'type', 'category', 'resources', 'billing', 'regions'];
  await printPages(out, platform.iterateProducts(filters), header, (p) => {
    const spec = (p.resource_spec ?? {}) as { gpu?: { name?: unknown; available?: unknown }; cpu?: unknown };
    return [
      p.id,
      text(p.name),
      text(p.type),
      text(p.category),
      spec.gpu ? `${text(spec.gpu.name)} (${text(spec.gpu.available)} available)` : `${text(spec.cpu)} CPU`,
      (p.billing_methods ?? []).join(',') || '-',
      (p.region_ids ?? []).join(',') || '-',
    ];
  });
}

async function printTemplates(out: Out, o: Record<string, string | boolean | undefined>): Promise<void> {
  const platform = await platformOf(process.env);
  const filters = {
    name: o.name as string | undefined,
    type: o.type as string | undefined,
    visibilities: o.visibilities as string | undefined,
    member_ids: o.memberIds as string | undefined,
    ...(o.mine ? { is_my_community: true } : {}),
  };
  const header = ['id', 'name', 'type', 'visibility', 'image'];
  await printPages(out, platform.iterateTemplates(filters), header, (t) => [
    t.id,
    text(t.name),
    text(t.type),
    text(t.visibility),
    text(t.image),
  ]);
}

function quotaLine(limit: QuotaLimit): string {
  const what = `${limit.quotaType} of ${limit.quotaObject}`;
  if (limit.perWindow === undefined) return `${what}: no limit known (${limit.note ?? 'none'})`;
  const tier = limit.tier ? `, tier ${limit.tier}` : '';
  return `${what}: ${limit.perWindow} per minute (${limit.source}${tier})`;
}

function paceLine(server: ServerPace, windowSeconds: number): string {
  const backlog = server.backlog === undefined ? '' : `; ${server.backlog} waiting`;
  if (server.rps === undefined) return `no limit on the server (pacing off, or no worker started yet)${backlog}`;
  const perMinute = (server.rps * windowSeconds).toFixed(1);
  const rate = `${server.rps.toFixed(3)} submits/s (${perMinute} per quota window)`;
  if (server.setByOperator) return `${rate}, set by an operator (workers leave it alone)${backlog}`;
  const state = server.state!;
  const hold = AdaptivePacing.holdRemainingMs(state, Date.now());
  const slowed = state.factor < 1 ? `slowed to ${Math.round(state.factor * 100)} % after 429s` : 'full pace';
  const held = hold > 0 ? `, every submit held ${Math.ceil(hold / 1000)} s more (Retry-After)` : '';
  return `${rate}, ${slowed}${held}${backlog}`;
}

const MAX_LISTED = 10_000;
const TOP_KEYS = 5;

/** Running generations still submitting, per fairness key: the top keys, then the rest as "other". */
async function submittingByFairnessKey(client: Client, taskQueue: string): Promise<string[]> {
  const counts = new Map<string, number>();
  let listed = 0;
  const query =
    `TaskQueue = '${taskQueue}' AND ExecutionStatus = 'Running' AND ` +
    `${SearchAttributes.status.name} IN ('SUBMITTING', 'REGENERATING')`;
  for await (const run of client.workflow.list({ query })) {
    const key = run.typedSearchAttributes.get(SearchAttributes.fairnessKey) ?? '(none)';
    counts.set(key, (counts.get(key) ?? 0) + 1);
    if (++listed >= MAX_LISTED) break;
  }
  const sorted = [...counts].sort((a, b) => b[1] - a[1]);
  const other = sorted.slice(TOP_KEYS).reduce((n, [, c]) => n + c, 0);
  const shown = sorted.slice(0, TOP_KEYS).map(([k, c]) => `${k} ${c}`);
  return [...shown, ...(other > 0 ? [`other ${other}`] : []), ...(listed >= MAX_LISTED ? ['(first 10,000 only)'] : [])];
}

async function printQuotas(out: Out): Promise<void> {
  // The same settings and quota list the workers read, so the figures match theirs.
  const settings = loadRateLimitSettings(process.env);
  const platform = await platformOf(process.env);
  const quotas = await platform.listQuotas({}).then(
    (r) => r.data,
    (err: unknown) => {
      out(`The quota list could not be read: ${err instanceof Error ? err.message : String(err)}`);
      return undefined;
    },
  );
  await withStarter(async ({ client, settings: temporal }) => {
    out(`Paid submits on task queue ${temporal.taskQueue}, platform ${platform.config.baseUrl}:`);
    for (const limit of resolveLimits(quotas, settings.RATE_LIMIT_QUOTAS, platform.config.paths)) {
      const queue = quotaTaskQueue(temporal.taskQueue, limit.operation);
      const server = await describeQuotaQueue(client, temporal.namespace, queue, true);
      const partitions = await queuePartitions(client, temporal.namespace, queue).then(
        (n) => plural(n, 'partition'),
        () => 'partitions unknown',
      );
      out(`  ${limit.operation}`);
      out(`    quota: ${quotaLine(limit)}`);
      out(`    pace:  ${paceLine(server, settings.RATE_LIMIT_WINDOW_SECONDS)}  [queue ${queue}, ${partitions}]`);
      if (server.oldestWaitingS !== undefined && server.backlog) {
        out(`    oldest waiting submit: ${server.oldestWaitingS.toFixed(1)} s`);
      }
      if (server.byPriority.length > 0) {
        out(
          `    waiting by class: ${server.byPriority.map((p) => `${priorityClassOf(p.priorityKey)} ${p.backlog}`).join(', ')}`,
        );
      }
    }
    const byKey = await submittingByFairnessKey(client, temporal.taskQueue);
    if (byKey.length > 0) out(`  generations submitting, by fairness key: ${byKey.join(', ')}`);
  });
}
