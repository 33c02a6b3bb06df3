import fs from "node:fs";
import path from "node:path";
import { setTimeout as pause } from "node:timers/promises";
import ExcelJS from "exceljs";
import { FieldInfo } from "../contract";
import { CellInput } from "../inputs";
import { GENERAL_FORMAT, resultBlockHeader, resultBlockWidth } from "../sheet";
import { Outcomes } from "./outcomes";
import { Plan } from "./plan";
import { EARLIER_REPORT_NAMES, OutCell, OutRow, REPORT_SHEETS, blockCells, firstRowOf, isReportSheet, comparablesRows, summaryRows, warningsRows, COMPARABLES_SHEET, WARNINGS_SHEET, SUMMARY_SHEET } from "./report-sheets";
import { RunSummary } from "./summary";
import { InputTable } from "./table-reader";

/**
 * Writes the output workbook: the user's columns untouched, the result block beside them, then the
 * Comparables, Warnings and Summary sheets.
 *
 * - A new workbook is streamed (exceljs's WorkbookWriter): rows go to disk as they are made, so
 *   memory stays flat however many rows and comparables there are.
 * - An in-place refresh (OUT is the input workbook) loads it whole, as only that keeps the user's
 *   other sheets, styles and formulas: the earlier result block is replaced, the report sheets are
 *   rewritten, nothing else changes.
 *
 * Either way the workbook is written to a temporary file beside OUT and renamed over it, so a crash
 * or a full disk never leaves a half-written workbook where the user's was.
 */
export interface WriteInput {
  table: InputTable;
  plan: Plan;
  outcomes: Outcomes;
  summary: RunSummary;
  sandbox: boolean;
}

export class OutputError extends Error {
  override readonly name = "OutputError";
}

const BOLD = { bold: true } as const;
const LINK_FONT = { color: { argb: "FF0563C1" }, underline: true } as const;

function setCell(cell: ExcelJS.Cell, c: OutCell): void {
  if (c.link) {
    cell.value = { text: String(c.value), hyperlink: c.link };
    cell.font = LINK_FONT;
  } else cell.value = c.value === "" ? null : c.value;
  if (c.format && c.format !== GENERAL_FORMAT) cell.numFmt = c.format;
  if (c.bold) cell.font = BOLD;
}

/** Column widths of the block, in characters. */
function blockWidths(fields: readonly FieldInfo[]): number[] {
  return [10, 16, ...fields.map((f) => (f.unit === "url" ? 40 : f.unit === "text" || f.unit === "id" ? 24 : 14)), 60];
}

const REPORT_WIDTHS: Readonly<Record<string, number[]>> = {
  [COMPARABLES_SHEET]: [6, 36, 9, 26, 34, 9, 9, 7, 14, 12, 10, 9, 40, 14, 40],
  [WARNINGS_SHEET]: [6, 36, 9, 14, 100],
  [SUMMARY_SHEET]: [26, 60],
};

/** The block of a data row, by its table row index; undefined for blank rows and rows outside the table. */
function blockByTableRow(plan: Plan, outcomes: Outcomes): (tableRow: number) => OutRow | undefined {
  const rowAt = new Map(plan.rows.map((row) => [row.sheetRow, row]));
  return (tableRow) => {
    const row = rowAt.get(tableRow);
    const outcome = row === undefined ? undefined : outcomes.get(row);
    return outcome ? blockCells(outcome, plan.fields) : undefined;
  };
}

/** A CSV cell as a workbook cell: plain numbers become numbers (as Excel opens a CSV); anything else stays text. */
function csvValue(value: CellInput): ExcelJS.CellValue {
  if (typeof value !== "string") return value ?? null;
  const t = value.trim();
  if (t === "") return null;
  // Not "02134" (a ZIP code would lose its zero) and not "1e5".
  if (/^-?(0|[1-9]\d{0,14})(\.\d+)?$/.test(t)) return Number(t);
  return value;
}

export async function writeNewWorkbook(out: string, w: WriteInput): Promise<void> {
  await atomically(out, async (temp) => {
    const stream = fs.createWriteStream(temp);
    const closed = new Promise<void>((resolve, reject) => {
      stream.once("close", resolve);
      stream.once("error", reject);
    });
    const book = new ExcelJS.stream.xlsx.WorkbookWriter({ stream, useStyles: true, useSharedStrings: false });
    await writeMainSheet(book, w);
    await writeReportSheets(book, w);
    await book.commit();
    await closed;
  });
}

async function writeMainSheet(book: ExcelJS.stream.xlsx.WorkbookWriter, w: WriteInput): Promise<void> {
  const { table, plan } = w;
  const ws = book.addWorksheet(table.sheetName, { views: [{ state: "frozen", ySplit: plan.headerIndex + 1 }] });
  const earlier = plan.earlierBlock;
  // The user's columns, less any earlier result block; the new block goes where that was, or after the widest row.
  const before = earlier ? earlier.start : table.width;
  const afterFrom = earlier ? earlier.start + earlier.width : table.width;
  const sourceColumns = [...range(0, before), ...range(afterFrom, table.width)];
  const header = resultBlockHeader(plan.fields, w.sandbox).map((c): OutCell => ({ ...c, bold: true }));
  const widths = blockWidths(plan.fields);
  const sourceWidth = (c: number) => table.worksheet?.getColumn(c + 1).width;
  ws.columns = [
    ...range(0, before).map((c) => ({ width: sourceWidth(c) ?? 14 })),
    ...widths.map((width) => ({ width })),
    ...range(afterFrom, table.width).map((c) => ({ width: sourceWidth(c) ?? 14 })),
  ];
  const blockOf = blockByTableRow(plan, w.outcomes);
  const last = Math.max(table.rows.length, plan.headerIndex + 1);
  for (let r = 0; r < last; r++) {
    const source = table.rows[r];
    const block = r === plan.headerIndex ? header : blockOf(r);
    if (!source && !block) continue;
    const row = ws.getRow(r + 1);
    sourceColumns.forEach((c, i) => {
      const value = source?.[c];
      if (value === undefined || value === null || value === "") return;
      const cell = row.getCell(i + 1 + (c >= afterFrom ? widths.length : 0));
      cell.value = table.format === "csv" ? csvValue(value) : value;
      const format = table.formats[r]?.[c];
      if (format && format !== GENERAL_FORMAT) cell.numFmt = format;
      if (r === plan.headerIndex) cell.font = BOLD;
    });
    block?.forEach((c, i) => setCell(row.getCell(before + 1 + i), c));
    row.commit();
    // Let the zip stream drain (compression runs off the main thread), so rows do not pile up in memory ahead of it.
    if (r % 200 === 199) await pause(0);
  }
  ws.commit();
}

async function writeReportSheets(book: ExcelJS.Workbook, w: WriteInput, commit = true): Promise<void> {
  const sheets: [string, Iterable<OutRow>][] = [
    [COMPARABLES_SHEET, comparablesRows(w.plan, w.outcomes)],
    [WARNINGS_SHEET, warningsRows(w.plan, w.outcomes)],
    [SUMMARY_SHEET, summaryRows(w.summary)],
  ];
  for (const [name, rows] of sheets) {
    const ws = book.addWorksheet(name, name === SUMMARY_SHEET ? {} : { views: [{ state: "frozen", ySplit: 1 }] });
    ws.columns = (REPORT_WIDTHS[name] ?? []).map((width) => ({ width }));
    let n = 0;
    for (const cells of rows) {
      const row = ws.getRow(++n);
      cells.forEach((c, i) => setCell(row.getCell(i + 1), c));
      if (commit) {
        row.commit();
        if (n % 200 === 0) await pause(0);
      }
    }
    if (commit) ws.commit();
  }
}

/** Refreshes the input workbook in place: the result block replaced, the report sheets rewritten, all else kept. */
export async function refreshInPlace(out: string, w: WriteInput): Promise<void> {
  const { table, plan } = w;
  const book = table.workbook;
  const ws = table.worksheet;
  if (!book || !ws) throw new Error("an in-place refresh needs the loaded workbook");
  const width = resultBlockWidth(plan.fields);
  const earlier = plan.earlierBlock;
  const start = (earlier ? earlier.start : table.width) + 1;
  if (earlier && earlier.width !== width && table.width > earlier.start + earlier.width) {
    // Columns of the user's after the block move with it, rather than being overwritten.
    if (width > earlier.width) ws.spliceColumns(start + earlier.width, 0, ...Array.from({ length: width - earlier.width }, () => []));
    else ws.spliceColumns(start + width, earlier.width - width);
  }
  const clearWidth = Math.max(width, earlier && table.width <= earlier.start + earlier.width ? earlier.width : 0);
  ws.eachRow({ includeEmpty: true }, (row) => {
    for (let c = start; c < start + clearWidth; c++) {
      const cell = row.getCell(c);
      cell.value = null;
      cell.style = {};
    }
  });
  blockWidths(plan.fields).forEach((wd, i) => (ws.getColumn(start + i).width = wd));
  const header = resultBlockHeader(plan.fields, w.sandbox);
  header.forEach((c, i) => setCell(ws.getRow(plan.headerIndex + 1).getCell(start + i), { ...c, bold: true }));
  const blockOf = blockByTableRow(plan, w.outcomes);
  for (const row of plan.rows) {
    const block = blockOf(row.sheetRow);
    block?.forEach((c, i) => setCell(ws.getRow(row.sheetRow + 1).getCell(start + i), c));
  }

  for (const name of REPORT_SHEETS) {
    const existing = book.getWorksheet(name);
    if (existing) book.removeWorksheet(existing.id);
  }
  // A workbook screened before the report sheets had their STR names: its report sheets go, a user's own "Summary" stays.
  for (const [name, kind] of Object.entries(EARLIER_REPORT_NAMES)) {
    const earlier = book.getWorksheet(name);
    if (earlier && isReportSheet(kind, firstRowOf(earlier))) book.removeWorksheet(earlier.id);
  }
  await writeReportSheets(book, w, false);
  await atomically(out, (temp) => book.xlsx.writeFile(temp));
}

/** Writes through a temporary file beside `out`, then renames it over `out`. */
async function atomically(out: string, write: (temp: string) => Promise<void>): Promise<void> {
  const dir = path.dirname(path.resolve(out));
  const temp = path.join(dir, `.${path.basename(out)}.${process.pid}.str-screen.tmp`);
  try {
    await write(temp);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw new OutputError(`could not write ${out}: ${error instanceof Error ? error.message : String(error)}`);
  }
  try {
    fs.renameSync(temp, out);
  } catch (error) {
    // Excel on Windows locks an open workbook: keep the results under a name of their own.
    const stamp = new Date().toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
    const aside = path.join(dir, `${path.basename(out, path.extname(out))} (screened ${stamp}).xlsx`);
    let kept = temp;
    try {
      fs.renameSync(temp, aside);
      kept = aside;
    } catch {
      // The temporary file stays where it is.
    }
    const code = (error as NodeJS.ErrnoException).code;
    throw new OutputError(
      `could not replace ${out} (${code ?? String(error)}${code === "EBUSY" || code === "EPERM" || code === "EACCES" ? ": is it open in Excel? Close it and run again" : ""}); the results are in ${kept}`,
    );
  }
}

function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i);
}

