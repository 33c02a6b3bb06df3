import { CellInput, isBlank } from "../../src/inputs";
import { ResultBlockSpan, findResultBlock } from "../../src/sheet";
import { PaneError } from "../pane-error";
import { ExcelRun, a1Address } from "./host";

/**
 * The table the user selected, read with its header row: an Excel table the selection is in, the
 * selected range, or — when one cell is selected — the region around it (bounded by blank rows and
 * columns, as Ctrl+A selects it). Whole selected columns are cut to the sheet's used range.
 */
export interface TableRow {
  /** 0-based row of the sheet. */
  sheetRow: number;
  /** The row's cells from the table's first column, as wide as the header. */
  cells: CellInput[];
}

export interface SheetTable {
  sheetId: string;
  sheetName: string;
  /** "Sheet1!A1:F301", for the user. */
  address: string;
  /** 0-based sheet row of the header, and column of the table's first column. */
  headerRow: number;
  left: number;
  headers: CellInput[];
  /** The rows under the header through the last one holding anything. */
  rows: TableRow[];
  /** The Excel table the selection is in, if any. */
  tableName: string | undefined;
  /** Result columns of an earlier run, inside the table or right beside it (columns relative to `left`). */
  block: ResultBlockSpan | undefined;
}

/**
 * Rows read per sync. Excel on the web caps one request's payload at about 5 MB; 5,000 rows of a wide
 * table stay well under it, and a table that size takes a second or two to read either way.
 */
export const READ_CHUNK_ROWS = 5000;

/** Header cells right of the table looked at for the result block of an earlier run written beside it. */
const BESIDE_COLUMNS = 64;

export interface Bounds {
  row: number;
  column: number;
  rows: number;
  columns: number;
}

export async function readSelectedTable(run: ExcelRun): Promise<SheetTable> {
  return run(async (context) => {
    const selection = context.workbook.getSelectedRange();
    selection.load("rowIndex,columnIndex,rowCount,columnCount");
    const sheet = selection.worksheet;
    sheet.load("id,name");
    const tables = selection.getTables(false);
    tables.load("items");
    const used = sheet.getUsedRangeOrNullObject(true);
    used.load("rowIndex,columnIndex,rowCount,columnCount");
    await context.sync();

    if (used.isNullObject)
      throw new PaneError(`Sheet ${sheet.name} is empty: select a table whose first row holds the column names.`);
    const table = tables.items[0];
    let region: Excel.Range;
    if (table) region = table.getRange();
    else if (selection.rowCount === 1 && selection.columnCount === 1) region = selection.getSurroundingRegion();
    else region = selection;
    region.load("rowIndex,columnIndex,rowCount,columnCount");
    if (table) table.load("name,showTotals");
    await context.sync();

    const totals = table?.showTotals ? 1 : 0;
    const bounds = intersect(
      { row: region.rowIndex, column: region.columnIndex, rows: region.rowCount - totals, columns: region.columnCount },
      boundsOf(used),
    );
    if (!bounds || bounds.rows < 1)
      throw new PaneError(
        `Nothing in the selection on ${sheet.name}: select a table whose first row holds the column names.`,
      );

    const beside = sheet.getRangeByIndexes(bounds.row, bounds.column + bounds.columns, 1, BESIDE_COLUMNS);
    beside.load("values");
    const values = await readValues(context, sheet, bounds);

    const headers = (values[0] ?? []) as CellInput[];
    const address = a1Address(sheet.name, bounds.row, bounds.column, bounds.rows, bounds.columns);
    if (headers.every((h) => isBlank(h)))
      throw new PaneError(
        `The first row of ${address} is blank: select a table whose first row holds the column names.`,
      );
    const rows: TableRow[] = values
      .slice(1)
      .map((cells, i) => ({ sheetRow: bounds.row + 1 + i, cells: cells as CellInput[] }));
    while (rows.length > 0 && (rows.at(-1) as TableRow).cells.every((c) => isBlank(c))) rows.pop();
    if (rows.length === 0)
      throw new PaneError(
        `${address} has a header row and nothing under it: select the whole table, or one cell in it.`,
      );

    // An earlier block inside the table, or starting in the first column beside it (an Excel table does not grow to take it in).
    const found = findResultBlock([...headers, ...((beside.values[0] ?? []) as CellInput[])]);
    const block = found && found.start <= headers.length ? found : undefined;
    return {
      sheetId: sheet.id,
      sheetName: sheet.name,
      address,
      headerRow: bounds.row,
      left: bounds.column,
      headers,
      rows,
      tableName: table?.name,
      block,
    };
  });
}

/** Values of a range, READ_CHUNK_ROWS rows per sync (what was loaded before comes with the first). */
export async function readValues(
  context: Excel.RequestContext,
  sheet: Excel.Worksheet,
  b: Bounds,
): Promise<unknown[][]> {
  const values: unknown[][] = [];
  for (let r = 0; r < b.rows; r += READ_CHUNK_ROWS) {
    const part = sheet.getRangeByIndexes(b.row + r, b.column, Math.min(READ_CHUNK_ROWS, b.rows - r), b.columns);
    part.load("values");
    await context.sync();
    for (const row of part.values) values.push(row);
  }
  return values;
}

export function boundsOf(range: Excel.Range): Bounds {
  return { row: range.rowIndex, column: range.columnIndex, rows: range.rowCount, columns: range.columnCount };
}

export function intersect(a: Bounds, b: Bounds): Bounds | undefined {
  const row = Math.max(a.row, b.row);
  const column = Math.max(a.column, b.column);
  const rows = Math.min(a.row + a.rows, b.row + b.rows) - row;
  const columns = Math.min(a.column + a.columns, b.column + b.columns) - column;
  return rows > 0 && columns > 0 ? { row, column, rows, columns } : undefined;
}
