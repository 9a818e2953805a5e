// Amounts on the platform are integers in 1/10000 USD, and bills send most numbers as strings.
// They stay strings in parsed responses (no silent precision loss); these helpers read them.

const TEN_THOUSANDTHS_PER_USD = 10_000;

/** Parses an integer amount in 1/10000 USD, given as a string or a number. Throws on anything else. */
export function parseTenThousandths(value: string | number): number {
  const n = typeof value === 'number' ? value : Number(value.trim());
  if (!Number.isFinite(n) || (typeof value === 'string' && value.trim() === '')) {
    throw new TypeError(`not an amount in 1/10000 USD: ${JSON.stringify(value)}`);
  }
  return n;
}

/** 1/10000 USD (string or number) to USD. */
export function tenThousandthsToUsd(value: string | number): number {
  return parseTenThousandths(value) / TEN_THOUSANDTHS_PER_USD;
}

/** 1/10000 USD as USD text to the platform's precision: `5600` → `"0.5600"`. */
export function usdText(amount: number): string {
  return tenThousandthsToUsd(amount).toFixed(4);
}

/** USD to whole 1/10000 USD, rounded to the nearest unit. */
export function usdToTenThousandths(usd: number): number {
  return Math.round(usd * TEN_THOUSANDTHS_PER_USD);
}

/** Parses a numeric string field (billNum0, video_url_ttl …); undefined when absent or not numeric. */
export function parseNumeric(value: string | number | null | undefined): number | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  const trimmed = value.trim();
  if (trimmed === '') return undefined;
  const n = Number(trimmed);
  return Number.isFinite(n) ? n : undefined;
}

/** Unit price in USD from a bill's price field and its pricePrecision (spec: price / 10000 / precision). */
export function unitPriceUsd(price: string | number, pricePrecision: number): number {
  return parseTenThousandths(price) / TEN_THOUSANDTHS_PER_USD / (pricePrecision || 1);
}
