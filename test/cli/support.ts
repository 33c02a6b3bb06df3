import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import ExcelJS from "exceljs";
import { run } from "../../src/cli/run-command";

/** Runs str-screen in this process, as users run it, with captured streams and a clean environment. */
export const FIXTURES = path.join(__dirname, "..", "fixtures");
export const MESSY_CSV = path.join(FIXTURES, "portfolio-messy.csv");
export const MESSY_XLSX = path.join(FIXTURES, "portfolio-messy.xlsx");

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

export function tempDir(prefix = "str-screen-test-"): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** The environment of a test run: the sandbox answers at once; nothing of the developer's environment leaks in. */
export function testEnv(dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return { SANDBOX_TIME_SCALE: "0", RELAY_DATA_DIR: dataDir, HOME: dataDir, ...extra };
}

export async function screen(args: string[], env: Record<string, string>, signal?: AbortSignal): Promise<Ran> {
  let stdout = "";
  let stderr = "";
  const code = await run(args, {
    env,
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s), isTTY: false },
    ...(signal ? { signal } : {}),
  });
  return { code, stdout, stderr };
}

export async function readWorkbook(file: string): Promise<ExcelJS.Workbook> {
  const book = new ExcelJS.Workbook();
  await book.xlsx.readFile(file);
  return book;
}

export function sheet(book: ExcelJS.Workbook, name: string): ExcelJS.Worksheet {
  const ws = book.getWorksheet(name);
  if (!ws) throw new Error(`no sheet ${name}; sheets: ${book.worksheets.map((w) => w.name).join(", ")}`);
  return ws;
}

/** Row `n` of a sheet as plain values (index 0 = column A). */
export function rowValues(ws: ExcelJS.Worksheet, n: number): unknown[] {
  const values = ws.getRow(n).values;
  // exceljs leaves holes for empty cells: read them as null.
  return Array.isArray(values) ? Array.from(values.slice(1), (v: unknown) => v ?? null) : [];
}

/** The column (1-based) whose header in `headerRow` is `name`. */
export function columnOf(ws: ExcelJS.Worksheet, headerRow: number, name: string | RegExp): number {
  const headers = rowValues(ws, headerRow);
  const i = headers.findIndex((h) => (typeof name === "string" ? h === name : typeof h === "string" && name.test(h)));
  if (i < 0) throw new Error(`no column ${String(name)} in ${JSON.stringify(headers)}`);
  return i + 1;
}

/** The Summary sheet as label → value. */
export function summaryOf(book: ExcelJS.Workbook): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  sheet(book, "STR Summary").eachRow((row) => {
    const [label, value] = (row.values as unknown[]).slice(1);
    if (typeof label === "string") out[label] = value;
  });
  return out;
}
