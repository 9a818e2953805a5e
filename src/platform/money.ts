// Amounts on the platform are integers in 1/10000 USD, and bills send most numbers as strings.
// They stay strings in parsed responses (no silent precision loss); these helpers read them.

/** Parses an integer amount in 1/10000 USD, given as a string or a number. Throws on anything else. */
export function parseTenThousandths(value: string | number): number {
  const n = typeof value === 'number' ? value : Number(value.trim());
  if (!Number.isFinite(n) || (typeof value === 'string' && value.trim() === '')) {
    throw new TypeError(`not an amount in 1/10000 USD: ${JSON.stringify(value)}`);
  }
  return n;
}

/** 1/10000 USD as USD text to the platform's precision: `5600` → `"0.5600"`. */
export function usdText(amount: string | number): string {
  return (parseTenThousandths(amount) / 10_000).toFixed(4);
}
