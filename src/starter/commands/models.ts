// `models`: the model registry (src/platform/model-registry.json) as mediaGeneration's "async" form sees it.
import { MODEL_REGISTRY } from '../../platform/models';

type Out = (line: string) => void;

export function modelsCommand(out: Out): void {
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
  for (const row of [header, ...rows])
    out(
      row
        .map((cell, i) => cell.padEnd(widths[i]))
        .join('  ')
        .trimEnd(),
    );
  const prefixes = MODEL_REGISTRY.passThroughPrefixes;
  out(
    prefixes.length > 0
      ? `Other models starting with ${prefixes.map((p) => JSON.stringify(p)).join(' or ')} are sent as they are (size and shape bounds only).`
      : 'Other models are refused (the registry allows no pass-through).',
  );
  out('Prices are in 1/10000 USD per task; entries marked (example) stand for models the spec names without a body.');
}
