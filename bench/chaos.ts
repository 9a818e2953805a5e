// `npm run chaos`: the fault suite (bench/chaos/). Prints its figures and targets, writes them to
// bench-results/chaos.json, and exits non-zero when a target is missed.
//
//   npm run chaos -- [--per-type=35] [--outage=300] [--storm=60] [--latency=90] [--cut=60]  (seconds)
//                    [--scenarios=file.json,…]  (default: the three in packages/emulator/scenarios; empty: none)
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { listArg, numberArg } from './support/args';
import { formatChecks } from './support/checks';
import { runChaosSuite, type ChaosResult } from './chaos/suite';

function formatFigures(r: ChaosResult): string {
  const f = r.figures;
  const rows = Object.keys(f.started.byType).map((type) => {
    const failed = Object.entries(f.failed.byType[type] ?? {})
      .map(([why, n]) => `${why} ${n}`)
      .join(', ');
    return `  ${type.padEnd(17)} started ${f.started.byType[type]}, completed ${f.completed.byType[type] ?? 0}, failed ${failed || 0}`;
  });
  const faults = f.faults.map((x) => {
    const failed = Object.entries(f.failed.byWave[x.name] ?? {})
      .map(([why, n]) => `${why} ${n}`)
      .join(', ');
    return `  ${x.name.padEnd(17)} ${x.seconds} s, ${x.inFlight} workflows in flight; its wave failed ${failed || 0}`;
  });
  return [
    `started ${f.started.total}, completed ${f.completed.total}, failed ${f.failed.total}, unfinished ${f.unfinished.total}`,
    ...rows,
    'faults:',
    ...faults,
    `Nexus: ${r.nexus.runs} runs started by callers in another namespace; ${r.nexus.results} callers got their run's ` +
      `result, ${r.nexus.failedAsRun} failed as their run did, ${r.nexus.mismatched.total} did not end as their run did; ` +
      `duplicate paid submissions of these runs ${r.nexus.duplicatePaid}`,
    ...r.nexus.mismatched.examples.map((e) => `nexus: ${e}`),
    `duplicate paid submissions ${f.duplicatePaidSubmissions.total} ${JSON.stringify(f.duplicatePaidSubmissions.byRoute)}` +
      `; answers lost with a killed worker and bought again ${f.duplicatePaidSubmissions.justified.total}`,
    `leaked reservations ${f.leakedReservations.total ?? 'not measured (the ledger did not answer)'}; API-key occurrences ${f.keyOccurrences.total} ` +
      `(${r.scanned.histories} histories, ${Math.round(r.scanned.logBytes / 1024)} KB of logs ` +
      `(longest line ${Math.max(0, ...Object.values(r.scanned.longestLineByLog))} bytes), ` +
      `${Math.round(r.scanned.artifactBytes / 1024)} KB of artifacts searched)`,
    ...f.unjustifiedFailures.examples.map((e) => `unjustified: ${e}`),
    ...Object.entries(f.unfinished.byWave).map(([wave, n]) => `unfinished: ${n} of the ${wave} wave`),
    ...f.unfinished.examples.map((e) => `unfinished: ${e}`),
    ...f.duplicatePaidSubmissions.examples.map((e) => `duplicate: ${e}`),
    ...f.duplicatePaidSubmissions.justified.examples.map((e) => `lost with the worker: ${e}`),
  ].join('\n');
}

async function main(): Promise<void> {
  const result = await runChaosSuite({
    perType: numberArg('per-type'),
    outageS: numberArg('outage'),
    stormS: numberArg('storm'),
    latencyS: numberArg('latency'),
    cutS: numberArg('cut'),
    scenarios: listArg('scenarios')?.map((file) => path.resolve(file)),
    only: listArg('faults'),
  });
  console.log(`\n${formatFigures(result)}\n\n${formatChecks(result.checks)}`);
  const outDir = path.resolve(__dirname, '..', '..', 'bench-results');
  mkdirSync(outDir, { recursive: true });
  const file = path.join(outDir, 'chaos.json');
  writeFileSync(file, JSON.stringify({ at: new Date().toISOString(), ...result }, null, 2));
  console.log(`\n${result.passed ? 'PASS' : 'FAIL'}; figures written to ${path.relative(process.cwd(), file)}`);
  process.exitCode = result.passed ? 0 : 1;
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  process.exitCode = 1;
});
