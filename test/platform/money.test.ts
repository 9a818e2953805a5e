import { parseNumeric, tenThousandthsToUsd, unitPriceUsd, usdToTenThousandths } from '../../src/platform/money';

describe('money helpers', () => {
  it('turns 1/10000 USD strings into USD', () => {
    expect(tenThousandthsToUsd('12345')).toBeCloseTo(1.2345);
    expect(tenThousandthsToUsd(15)).toBeCloseTo(0.0015);
    expect(() => tenThousandthsToUsd('abc')).toThrow(/not an amount/);
    expect(() => tenThousandthsToUsd('')).toThrow(/not an amount/);
  });
  it('round-trips USD', () => {
    expect(usdToTenThousandths(0.0015)).toBe(15);
    expect(usdToTenThousandths(12.34567)).toBe(123457);
  });
  it('parses numeric strings leniently', () => {
    expect(parseNumeric('3600')).toBe(3600);
    expect(parseNumeric(' 7 ')).toBe(7);
    expect(parseNumeric('')).toBeUndefined();
    expect(parseNumeric('x')).toBeUndefined();
    expect(parseNumeric(undefined)).toBeUndefined();
  });
  it('computes unit prices with pricePrecision', () => {
    expect(unitPriceUsd('2000', 100)).toBeCloseTo(0.002);
  });
});
