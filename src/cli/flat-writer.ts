import fs from "node:fs";
import { isWebAddress } from "../contract";
import { DATE_TIME_FORMAT, columnName, inertText } from "../sheet";
import { atomically } from "./atomic-file";
import { SheetCell, WriteSource, mainSheetRows } from "./main-sheet";
import { RunSummary } from "./summary";

/*
 * The screened sheet for scripts: `--out results.csv` or `--out results.json`, with the columns and
 * rows the workbook's first sheet has (docs/cli.md, "Output"). Values are the cells' values, not
 * their display: a percent is the fraction under the workbook's % format, money a plain number, a
 * time the sheet's local "yyyy-mm-dd hh:mm:ss", a link its address. The report sheets (comparables,
 * warnings, summary) are the workbook's; the JSON carries the summary too.
 */

export type FlatValue = string | number | boolean | null;

/** The JSON file's shape (docs/cli.md documents it field by field). */
export interface ScreenedJson {
  /** The header row's names: blank ones are named by column letter ("Column P"), repeated ones numbered ("Notes (2)"). */
  columns: string[];
  /** The sheet row (1-based) the header is in. */
  headerRow: number;
  /** Each non-blank row below the header: its sheet row and its cells by column name (null when empty). */
  rows: { row: number; values: Record<string, FlatValue> }[];
  summary: RunSummary;
}

const MS_PER_DAY = 86_400_000;
const EXCEL_EPOCH_UTC = Date.UTC(1899, 11, 30);

/** A time as the sheet shows it: a Date read from a workbook holds its wall-clock time in UTC fields (as exceljs reads it). */
function wallClockText(date: Date): string {
  const iso = date.toISOString();
  return iso.endsWith("T00:00:00.000Z") ? iso.slice(0, 10) : `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
}

export function flatValue(cell: SheetCell | undefined): FlatValue {
  const value = cell?.value;
  if (value === undefined || value === null || value === "") return null;
  if (value instanceof Date) return wallClockText(value);
  if (typeof value === "number" && cell?.format === DATE_TIME_FORMAT)
    return wallClockText(new Date(EXCEL_EPOCH_UTC + Math.round(value * MS_PER_DAY)));
  return cell?.link && typeof value === "string" && isWebAddress(cell.link) ? cell.link : value;
}

/** A field as a spreadsheet opening the file reads it: text never as a formula (inert-text.ts), numbers as numbers. */
function csvField(value: FlatValue): string {
  if (value === null) return "";
  const text = typeof value === "string" ? inertText(value) : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** RFC 4180: comma-separated, "-quoted where needed, CRLF line ends, UTF-8; one line per sheet row, blank rows kept so line n is row n. */
export async function writeCsv(out: string, w: WriteSource): Promise<void> {
  await atomically(out, async (temp) => {
    const file = fs.openSync(temp, "w");
    try {
      let next = 0;
      for (const { index, cells } of mainSheetRows(w)) {
        const lines = "\r\n".repeat(index - next) + Array.from(cells, (c) => csvField(flatValue(c))).join(",") + "\r\n";
        fs.writeSync(file, lines);
        next = index + 1;
      }
    } finally {
      fs.closeSync(file);
    }
  });
}

export async function writeJson(out: string, w: WriteSource & { summary: RunSummary }): Promise<void> {
  const doc: ScreenedJson = { columns: [], headerRow: w.plan.headerIndex + 1, rows: [], summary: w.summary };
  for (const { index, cells } of mainSheetRows(w)) {
    if (index < w.plan.headerIndex) continue;
    if (index === w.plan.headerIndex) {
      doc.columns = columnNames(Array.from(cells, flatValue));
      continue;
    }
    const values = Object.fromEntries(doc.columns.map((name, c) => [name, flatValue(cells[c])]));
    if (Object.values(values).some((v) => v !== null)) doc.rows.push({ row: index + 1, values });
  }
  await atomically(out, async (temp) => fs.writeFileSync(temp, `${JSON.stringify(doc, null, 2)}\n`));
}

function columnNames(header: readonly FlatValue[]): string[] {
  const seen = new Map<string, number>();
  return header.map((h, c) => {
    const base = h === null || String(h).trim() === "" ? `Column ${columnName(c)}` : String(h).trim();
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    return n === 1 ? base : `${base} (${n})`;
  });
}
