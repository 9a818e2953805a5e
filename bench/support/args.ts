// Command-line arguments of the benchmarks and the fault suite.

/** The text after `--name=`, or undefined when absent. */
function rawArg(name: string): string | undefined {
  return process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
}

/** `--name=<positive number>`, or undefined when absent. */
export function numberArg(name: string): number | undefined {
  const raw = rawArg(name);
  if (raw === undefined) return undefined;
  const arg = `--${name}=${raw}`;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number, not "${arg}"`);
  return n;
}

/** `--name=<text>`, or undefined when absent. */
export function stringArg(name: string): string | undefined {
  return rawArg(name) || undefined;
}

/** `--name=a,b,c` as a list (`--name=` alone: an empty one), or undefined when absent. */
export function listArg(name: string): string[] | undefined {
  return rawArg(name)
    ?.split(',')
    .map((x) => x.trim())
    .filter((x) => x !== '');
}
