// CSV cells of the billing report. Product, category and key names come from the platform, and the
// CSV is opened in spreadsheets: a cell starting with =, +, -, @ (or a tab or carriage return) would
// run there as a formula (=HYPERLINK(...) to leak a sheet, say). Such text is kept as text with a
// leading apostrophe, as OWASP advises; numbers stay numbers.

const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^[+-]?\d+(\.\d+)?$/;

/** One CSV cell: quoted when it holds a quote, comma or line break; formulas defused. */
export function csvCell(value: string | number | undefined): string {
  let s = value === undefined ? '' : String(value);
  if (typeof value === 'string' && FORMULA_START.test(s) && !PLAIN_NUMBER.test(s)) s = `'${s}`;
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}
