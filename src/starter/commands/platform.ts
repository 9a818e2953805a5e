// `models`: the model registry (src/platform/model-registry.json). `quotas`: docs/rate-limits.md#seeing-it.
import type { Command } from 'commander';
import { quotaTaskQueue } from '../../api/contract';
import { loadRateLimitSettings } from '../../config/settings';
import { MODEL_REGISTRY } from '../../platform/models';
import { PlatformClient } from '../../platform-client/client';
import { AdaptivePacing, resolveLimits, type QuotaLimit } from '../../ratelimit/pacing';
import { describeQuotaQueue, queuePartitions, type ServerPace } from '../../ratelimit/shared-pacing';
import { plural, tableRow, withStarter, type Out } from '../cli';

export function addPlatformCommands(program: Command, out: Out): void {
  program
    .command('models')
    .description("the model registry: what mediaGeneration's --model takes")
    .action(() => printModels(out));
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
  const header = ['model', 'path (/v3/async/…)', 'outputs', 'body check', 'price/task', 'quota'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  for (const row of [header, ...rows]) out(tableRow(widths, row, '  ').trimEnd());
  const prefixes = MODEL_REGISTRY.passThroughPrefixes;
  out(
    prefixes.length > 0
      ? `Other models starting with ${prefixes.map((p) => JSON.stringify(p)).join(' or ')} are sent as they are (size and shape bounds only).`
      : 'Other models are refused (the registry allows no pass-through).',
  );
  out('Prices are in 1/10000 USD per task; entries marked (example) stand for models the spec names without a body.');
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

async function printQuotas(out: Out, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  // The same settings and quota list the workers read, so the figures match theirs.
  const settings = loadRateLimitSettings(env);
  const platform = PlatformClient.fromEnv(env);
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
    }
  });
}
