// Command-line arguments of the benchmarks and the fault suite.

/** `--name=<positive number>`, or undefined when absent. */
export function numberArg(name: string): number | undefined {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  if (!arg) return undefined;
  const n = Number(arg.slice(name.length + 3));
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number, not "${arg}"`);
  return n;
}

/** `--name=a,b,c` as a list (`--name=` alone: an empty one), or undefined when absent. */
export function listArg(name: string): string[] | undefined {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  if (!arg) return undefined;
  return arg
    .slice(name.length + 3)
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x !== '');
}
