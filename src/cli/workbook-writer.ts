import { once } from "node:events";
import fs from "node:fs";
import { setImmediate as nextTurn } from "node:timers/promises";
import type ExcelJS from "exceljs";
import { loadExcel } from "./excel";
import { FieldInfo } from "../contract";
import { GENERAL_FORMAT, resultBlockHeader, resultBlockWidth } from "../sheet";
import {
  MainSheetRows,
  SheetCell,
  WriteSource,
  blockByTableRow,
  mainSheetLayout,
  mainSheetRowCells,
  rowIsFinal,
} from "./main-sheet";
import {
  EARLIER_REPORT_NAMES,
  OutRow,
  REPORT_SHEETS,
  firstRowOf,
  isReportSheet,
  comparablesRows,
  summaryRows,
  warningsRows,
  COMPARABLES_HEADER,
  WARNINGS_HEADER_ROW,
  COMPARABLES_SHEET,
  WARNINGS_SHEET,
  SUMMARY_SHEET,
  MONTHLY_SHEET,
  MONTHLY_HEADER,
} from "./report-sheets";
import { monthlyRows } from "./monthly-sheet";
import { RunSummary } from "./summary";
import { TempBeside, atomically } from "./atomic-file";
import { calculateOnLoad, streamCalculateOnLoad } from "./full-calc";

/*
 * Writes the output workbook: the user's columns untouched, the result block beside them, then the
 * Comparables, Warnings and Summary sheets.
 *
 * - A new workbook is streamed (exceljs's WorkbookWriter): rows go to disk as they are made, so
 *   memory stays flat however many rows and comparables there are. It is opened before the run, and
 *   the screened sheet's rows are written while it goes, each once it is final and those above it
 *   are: that sheet is the workbook's first part, so only what is left waits for the end. The report
 *   sheets follow it in the file, so they are written after the run.
 * - An in-place refresh (OUT is the input workbook) loads it whole, as only that keeps the user's
 *   other sheets, styles and formulas: the earlier result block is replaced, the report sheets are
 *   rewritten, nothing else changes.
 *
 * Either way the workbook is written to a temporary file beside OUT and renamed over it, so a crash
 * or a full disk never leaves a half-written workbook where the user's was.
 */

export interface WriteInput extends WriteSource {
  summary: RunSummary;
}

const BOLD = { bold: true } as const;

/**
 * Rows written between two turns of the event loop. The zip compresses in those turns (zlib's
 * callbacks): written in longer runs, rows come faster than it takes them and wait in memory, a
 * whole sheet of comparables of them.
 */
const ROWS_PER_TURN = 20;

/**
 * A turn of the event loop for the zip to take the rows written, and on a busy machine, where it
 * compresses slower than they are made, until the sheet's entry has taken them (its drain).
 */
async function letZipCatchUp(ws: ExcelJS.Worksheet): Promise<void> {
  await nextTurn();
  // exceljs writes a streamed sheet into `stream`, piped to the zip entry's input (a readable-stream
  // PassThrough, whose state says when a write went past its high-water mark).
  const entries = (ws as unknown as { stream?: { pipes?: EntryInput[] } }).stream?.pipes ?? [];
  for (const entry of entries) if (entry._writableState?.needDrain) await once(entry, "drain");
}

type EntryInput = NodeJS.EventEmitter & { _writableState?: { needDrain?: boolean } };
const LINK_FONT = { color: { argb: "FF0563C1" }, underline: true } as const;

function setCell(cell: ExcelJS.Cell, c: SheetCell): void {
  if (c.link) cell.value = { text: String(c.value), hyperlink: c.link };
  else cell.value = c.value === "" || c.value === undefined ? null : c.value;
  cell.style = styleOf(c);
}

/**
 * One style object per look, shared by every cell that has it: exceljs works out the XML of a style
 * object once and then knows it by identity, where a style made for each cell is worked out again.
 */
const STYLES = new Map<string, Partial<ExcelJS.Style>>();
function styleOf(c: SheetCell): Partial<ExcelJS.Style> {
  const format = c.format && c.format !== GENERAL_FORMAT ? c.format : undefined;
  const font = c.bold ? BOLD : c.link ? LINK_FONT : undefined;
  const key = `${c.bold ? "b" : c.link ? "l" : ""}|${format ?? ""}`;
  let style = STYLES.get(key);
  if (!style) STYLES.set(key, (style = { ...(format ? { numFmt: format } : {}), ...(font ? { font } : {}) }));
  return style;
}

/** Column widths of the block, in characters. */
function blockWidths(fields: readonly FieldInfo[]): number[] {
  return [10, 16, ...fields.map((f) => (f.unit === "url" ? 40 : f.unit === "text" || f.unit === "id" ? 24 : 14)), 60];
}

const REPORT_WIDTHS: Readonly<Record<string, number[]>> = {
  [COMPARABLES_SHEET]: [6, 36, 9, 26, 34, 9, 9, 7, 14, 12, 10, 9, 40, 40, 14, 40],
  [MONTHLY_SHEET]: [6, 36, 9, 26, 10, 12, 10, 12, 40],
  [WARNINGS_SHEET]: [6, 36, 9, 14, 100],
  [SUMMARY_SHEET]: [26, 60],
};

const HEADERS: Readonly<Record<string, readonly string[]>> = {
  [COMPARABLES_SHEET]: COMPARABLES_HEADER,
  [MONTHLY_SHEET]: MONTHLY_HEADER,
  [WARNINGS_SHEET]: WARNINGS_HEADER_ROW,
};

/** A new workbook: the screened sheet written as its rows become final (writeFinalRows), the rest by `finish`. */
export class NewWorkbook {
  readonly #file: TempBeside;
  readonly #closed: Promise<void>;
  readonly #book: ExcelJS.stream.xlsx.WorkbookWriter;
  readonly #sheet: ExcelJS.Worksheet;
  readonly #rows: MainSheetRows;
  readonly #isFinal: (tableRow: number) => boolean;
  #next = 0;
  #failed: unknown;
  /** finish ran: the workbook is OUT, or its failure said where the results are. */
  #finished = false;

  static async open(out: string, source: WriteSource): Promise<NewWorkbook> {
    return new NewWorkbook(out, source, (await loadExcel()).stream.xlsx.WorkbookWriter);
  }

  private constructor(out: string, source: WriteSource, Writer: typeof ExcelJS.stream.xlsx.WorkbookWriter) {
    this.#file = new TempBeside(out);
    const stream = fs.createWriteStream(this.#file.temp);
    this.#closed = new Promise<void>((resolve, reject) => {
      stream.once("close", resolve);
      stream.once("error", reject);
    });
    // Seen by `finish`; until then a failed write must not end the run.
    this.#closed.catch(() => undefined);
    this.#book = new Writer({ stream, useStyles: true, useSharedStrings: false });
    streamCalculateOnLoad(this.#book);
    this.#sheet = addMainSheet(this.#book, source);
    this.#rows = mainSheetRowCells(source);
    this.#isFinal = rowIsFinal(source.plan, source.outcomes);
  }

  /** Writes the screened sheet's rows that are final, in order, up to the first that is not yet. */
  writeFinalRows(): void {
    try {
      while (this.#next < this.#rows.count && this.#isFinal(this.#next)) this.#writeRow(this.#next++);
    } catch (error) {
      this.#failed ??= error;
    }
  }

  /** Writes the rest (the rows not yet written, the report sheets) and renames the workbook over OUT. */
  async finish(w: WriteInput): Promise<void> {
    this.#finished = true;
    try {
      if (this.#failed) throw this.#failed;
      for (let n = 1; this.#next < this.#rows.count; n++) {
        this.#writeRow(this.#next++);
        if (n % ROWS_PER_TURN === 0) await letZipCatchUp(this.#sheet);
      }
      this.#sheet.commit();
      await writeReportSheets(this.#book, w);
      await this.#book.commit();
      await this.#closed;
    } catch (error) {
      throw this.#file.failed(error);
    }
    this.#file.replace();
  }

  /** OUT is not written (the run stopped before any answer, or failed): the temporary file goes. */
  discard(): void {
    if (!this.#finished) this.#file.discard();
  }

  #writeRow(r: number): void {
    const cells = this.#rows.cells(r);
    if (!cells) return;
    const row = this.#sheet.getRow(r + 1);
    cells.forEach((c, i) => c && setCell(row.getCell(i + 1), c));
    row.commit();
  }
}

/** The screened sheet, first in the workbook: the user's column widths, the block's, the frozen header and its filter. */
function addMainSheet(book: ExcelJS.stream.xlsx.WorkbookWriter, w: WriteSource): ExcelJS.Worksheet {
  const { table, plan } = w;
  const widths = blockWidths(plan.fields);
  const layout = mainSheetLayout(w, widths.length);
  const ws = book.addWorksheet(table.sheetName, { views: [{ state: "frozen", ySplit: plan.headerIndex + 1 }] });
  const sourceWidth = (c: number) => table.worksheet?.getColumn(c + 1).width;
  ws.columns = [
    ...range(0, layout.before).map((c) => ({ width: sourceWidth(c) ?? 14 })),
    ...widths.map((width) => ({ width })),
    ...range(layout.afterFrom, table.width).map((c) => ({ width: sourceWidth(c) ?? 14 })),
  ];
  ws.autoFilter = headerFilter(plan.headerIndex + 1, layout.width);
  return ws;
}

/** An autofilter on a header row `width` columns wide, as an analyst would set one by hand. */
function headerFilter(row: number, width: number): ExcelJS.AutoFilter {
  return { from: { row, column: 1 }, to: { row, column: Math.max(1, width) } };
}

async function writeReportSheets(book: ExcelJS.Workbook, w: WriteInput, commit = true): Promise<void> {
  const sheets: [string, Iterable<OutRow>][] = [
    [COMPARABLES_SHEET, comparablesRows(w.plan, w.outcomes)],
    [MONTHLY_SHEET, monthlyRows(w.plan, w.outcomes)],
    [WARNINGS_SHEET, warningsRows(w.plan, w.outcomes)],
    [SUMMARY_SHEET, summaryRows(w.summary)],
  ];
  for (const [name, rows] of sheets) {
    const ws = book.addWorksheet(name, name === SUMMARY_SHEET ? {} : { views: [{ state: "frozen", ySplit: 1 }] });
    ws.columns = (REPORT_WIDTHS[name] ?? []).map((width) => ({ width }));
    if (name !== SUMMARY_SHEET) ws.autoFilter = headerFilter(1, HEADERS[name]?.length ?? 1);
    let n = 0;
    for (const cells of rows) {
      const row = ws.getRow(++n);
      cells.forEach((c, i) => setCell(row.getCell(i + 1), c));
      if (commit) {
        row.commit();
        if (n % ROWS_PER_TURN === 0) await letZipCatchUp(ws);
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
    if (width > earlier.width)
      ws.spliceColumns(start + earlier.width, 0, ...Array.from({ length: width - earlier.width }, () => []));
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
  // The user's own filter stays; one on the header row (or none) grows to cover the block.
  const filterRow =
    typeof ws.autoFilter === "object" && ws.autoFilter !== null && typeof ws.autoFilter.from === "object"
      ? ws.autoFilter.from.row
      : undefined;
  if (!ws.autoFilter || filterRow === plan.headerIndex + 1)
    ws.autoFilter = headerFilter(plan.headerIndex + 1, mainSheetLayout(w, width).width);
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
  calculateOnLoad(book);
  await atomically(out, (temp) => book.xlsx.writeFile(temp));
}

function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i);
}
