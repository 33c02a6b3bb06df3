import { columnName } from "../../src/sheet";

/**
 * The one door from the task pane to the workbook. Everything the pane does in Excel goes through an
 * `ExcelRun`: `Excel.run` in Office, a stand-in with the same shape in the tests and the benchmark
 * (office-addin-mock objects, or a recording workbook), so each workbook interaction can be checked
 * and its `context.sync()` calls counted without Excel.
 */
export type ExcelRun = <T>(batch: (context: Excel.RequestContext) => Promise<T>) => Promise<T>;

/** Office's own runner, looked up when called: office.js defines `Excel` once it has loaded. */
export const officeExcelRun: ExcelRun = (batch) => Excel.run(batch);

/** "Sheet1!B2:D9" from 0-based indexes, for messages (quotes a sheet name that needs them). */
export function a1Address(sheetName: string, row: number, column: number, rows = 1, columns = 1): string {
  const sheet = /^[A-Za-z_][A-Za-z0-9_.]*$/.test(sheetName) ? sheetName : `'${sheetName.replace(/'/g, "''")}'`;
  const first = `${columnName(column)}${row + 1}`;
  const last = `${columnName(column + columns - 1)}${row + rows}`;
  return `${sheet}!${first === last ? first : `${first}:${last}`}`;
}
