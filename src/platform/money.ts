// Amounts are integers in 1/10000 USD, kept as the strings bills send (no silent precision loss).

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

/** `5600 (0.5600 USD)` */
export function formatAmount(amount: number): string {
  return `${amount} (${usdText(amount)} USD)`;
}
