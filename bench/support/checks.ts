// A benchmark's pass/fail, one target at a time, each printed beside its figure.

export interface Check {
  what: string;
  /** The measured figure (null: could not be measured, which fails the check). */
  figure: number | string | null;
  target: string;
  ok: boolean;
}

export function atMost(what: string, figure: number | null, limit: number, unit = ''): Check {
  return { what, figure, target: `<= ${limit}${unit}`, ok: figure !== null && figure <= limit };
}

export function isTrue(what: string, ok: boolean, figure: number | string, target: string): Check {
  return { what, figure, target, ok };
}

export function formatChecks(checks: Check[]): string {
  const width = Math.max(...checks.map((c) => c.what.length));
  return checks
    .map(
      (c) => `${c.ok ? 'ok  ' : 'FAIL'}  ${c.what.padEnd(width)}  ${String(c.figure ?? 'n/a')}  (target ${c.target})`,
    )
    .join('\n');
}
