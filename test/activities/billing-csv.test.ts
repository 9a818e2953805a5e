// The billing CSV's cells: platform text that a spreadsheet would run as a formula stays text.
import { csvCell } from '../../src/operations/billingReport/activities';

describe('csvCell', () => {
  it.each([
    ['=HYPERLINK("http://x","y")', `"'=HYPERLINK(""http://x"",""y"")"`],
    ['+1+2', "'+1+2"],
    ['-2+3', "'-2+3"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\t=1', "'\t=1"],
    ['\r=1', `"'\r=1"`],
  ])('defuses %j', (text, cell) => {
    expect(csvCell(text)).toBe(cell);
  });

  it('leaves numbers, signed amounts and ordinary text alone, and quotes as CSV does', () => {
    expect(csvCell(-5)).toBe('-5');
    expect(csvCell('-0.0150')).toBe('-0.0150');
    expect(csvCell('GPU, hourly')).toBe('"GPU, hourly"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell(undefined)).toBe('');
  });
});
