/*
 * Text a spreadsheet must keep as text. A CSV opened in Excel, LibreOffice or Sheets, and a value
 * set through Excel's API, is read as if typed: text that starts with =, +, -, @, a tab or a carriage
 * return can become a formula (=HYPERLINK(…) that leaks a sheet's data, =cmd|…). OWASP's rule for
 * CSV injection: such text gets a leading apostrophe, which the spreadsheet takes to mean "text" and
 * does not show. Numbers are not text and stay numbers. The pane's writer and str-screen's CSV use
 * this one rule, for the user's own cells and the service's text alike.
 */

const FORMULA_START = /^[=+\-@\t\r]/;

/** `text`, with the apostrophe that keeps it text when a spreadsheet could read it as a formula. */
export function inertText(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}
