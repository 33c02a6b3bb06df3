import fs from "node:fs";
import path from "node:path";
import type ExcelJS from "exceljs";
import { loadExcel } from "./excel";
import { CellInput, NumberStyle } from "../inputs";
import { UsageError } from "./args";
import { csvDelimiter, decodeCsv, parseCsv } from "./csv";

/**
 * The user's table as cells: every row of a CSV file, or of one sheet of a workbook (--sheet, or the
 * first visible one). Cell values become what the shared readers take (CellInput): numbers, text,
 * booleans, dates; a formula gives its last result, rich text its text, an error value its text
 * ("#N/A", which then fails to read as what the column needs and marks the row).
 */
export interface InputTable {
  format: "csv" | "xlsx";
  file: string;
  sheetName: string;
  /** rows[r][c], 0-based; rows and cells may be missing (sparse), which reads as blank. */
  rows: CellInput[][];
  /** The number format of each cell of an .xlsx input, to copy beside its value. */
  formats: (string | undefined)[][];
  /** The widest row. */
  width: number;
  /**
   * How its text numbers are written: a ;-separated CSV is written where "," is the decimal mark;
   * a comma-separated one, and a workbook's text cells, where "." is; a tab-separated one cannot say.
   */
  numbers: NumberStyle;
  /** The loaded workbook and sheet (.xlsx), for an in-place refresh. */
  workbook?: ExcelJS.Workbook;
  worksheet?: ExcelJS.Worksheet;
}

/** The sheet a CSV input becomes in the output workbook. */
export const CSV_SHEET_NAME = "Screening";

export async function readTable(file: string, sheet: string | undefined): Promise<InputTable> {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(
      code === "ENOENT"
        ? `IN ${JSON.stringify(file)} does not exist`
        : `IN ${JSON.stringify(file)} cannot be read (${code ?? String(error)})`,
    );
  }
  if (/\.xlsx$/i.test(file)) return readWorkbook(file, bytes, sheet);
  const text = decodeCsv(bytes);
  const rows: CellInput[][] = parseCsv(text);
  const delimiter = csvDelimiter(text);
  const numbers = delimiter === ";" ? "comma" : delimiter === "," ? "point" : "unknown";
  return { format: "csv", file, sheetName: CSV_SHEET_NAME, rows, formats: [], width: widest(rows), numbers };
}

async function readWorkbook(file: string, bytes: Buffer, sheet: string | undefined): Promise<InputTable> {
  const workbook = new (await loadExcel()).Workbook();
  try {
    // exceljs's typings predate Buffer's generic form; the bytes are what it reads.
    await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new UsageError(
      `IN ${JSON.stringify(path.basename(file))} is not a readable .xlsx workbook (${why.slice(0, 120)}); a password-protected workbook must be saved without its password first`,
    );
  }
  const worksheet = pickSheet(workbook, sheet, file);
  const rows: CellInput[][] = [];
  const formats: (string | undefined)[][] = [];
  worksheet.eachRow({ includeEmpty: false }, (row, rowNumber) => {
    const cells: CellInput[] = [];
    const fmts: (string | undefined)[] = [];
    row.eachCell({ includeEmpty: false }, (cell, col) => {
      // A merged range's other cells repeat its value in exceljs; Excel shows them empty.
      if (cell.isMerged && cell.master !== cell) return;
      cells[col - 1] = cellInput(cell.value);
      fmts[col - 1] = cell.numFmt || undefined;
    });
    rows[rowNumber - 1] = cells;
    formats[rowNumber - 1] = fmts;
  });
  return {
    format: "xlsx",
    file,
    sheetName: worksheet.name,
    rows,
    formats,
    width: widest(rows),
    numbers: "point",
    workbook,
    worksheet,
  };
}

function pickSheet(workbook: ExcelJS.Workbook, name: string | undefined, file: string): ExcelJS.Worksheet {
  const sheets = workbook.worksheets;
  if (name !== undefined) {
    const found =
      sheets.find((s) => s.name === name) ?? sheets.find((s) => s.name.toLowerCase() === name.trim().toLowerCase());
    if (!found)
      throw new UsageError(
        `--sheet ${JSON.stringify(name)} is not a sheet of ${path.basename(file)}; its sheets: ${sheets.map((s) => JSON.stringify(s.name)).join(", ")}`,
      );
    return found;
  }
  const first = sheets.find((s) => s.state === "visible") ?? sheets[0];
  if (!first) throw new UsageError(`IN ${JSON.stringify(path.basename(file))} has no sheets`);
  return first;
}

/** An exceljs cell value as the shared readers take it. */
export function cellInput(value: ExcelJS.CellValue): CellInput {
  if (value === null || value === undefined) return null;
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean" || value instanceof Date)
    return value;
  if (typeof value !== "object") return String(value);
  if ("richText" in value && Array.isArray(value.richText)) return value.richText.map((r) => r.text).join("");
  if ("hyperlink" in value) {
    const text: unknown = value.text;
    return typeof text === "string" ? text : cellInput(text as ExcelJS.CellValue);
  }
  if ("formula" in value || "sharedFormula" in value)
    return cellInput((value as ExcelJS.CellFormulaValue).result as ExcelJS.CellValue);
  if ("error" in value) return String(value.error);
  return null;
}

function widest(rows: readonly (readonly unknown[] | undefined)[]): number {
  let width = 0;
  for (const row of rows) if (row && row.length > width) width = row.length;
  return width;
}
