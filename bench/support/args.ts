// Command-line numbers of the benchmarks and the fault suite.

/** `--name=<positive number>`, or undefined when absent. */
export function numberArg(name: string): number | undefined {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  if (!arg) return undefined;
  const n = Number(arg.slice(name.length + 3));
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number, not "${arg}"`);
  return n;
}

/** `--name=<text>`, or undefined when absent. */
export function stringArg(name: string): string | undefined {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  return arg?.slice(name.length + 3) || undefined;
}
