import { parseTenThousandths, usdText } from '../../src/platform/money';

describe('money helpers', () => {
  it('reads 1/10000 USD strings and numbers, and writes them as USD', () => {
    expect(parseTenThousandths(' 12345 ')).toBe(12345);
    expect(usdText('12345')).toBe('1.2345');
    expect(usdText(15)).toBe('0.0015');
    expect(() => parseTenThousandths('abc')).toThrow(/not an amount/);
    expect(() => usdText('')).toThrow(/not an amount/);
  });
});
