import { BILLED_FUNCTIONS, BilledFunction, CellInput, isBlank } from "../../src/inputs";
import { ResultBlockSpan, findResultBlock } from "../../src/sheet";
import { PaneError } from "../pane-error";
import { ExcelRun, a1Address } from "./host";
import { Bounds, TableRow, boundsOf, intersect } from "./read-table";

/**
 * What a portfolio refresh covers in a scope — the selection, the active sheet or the workbook:
 * the STR.* formulas that call the service, and the tables screened earlier (found by their result
 * block's "STR status" header, whoever wrote it: the pane or str-screen). Read from each sheet's
 * used range, formulas and values, one sync per sheet.
 */
export type RefreshScope = "selection" | "sheet" | "workbook";

// The functions whose calls the service bills (src/inputs/billed-calls.ts). STR.COMPS, WHATIF and SENSITIVITY read stored analyses.

const CALL = new RegExp(`\\bSTR\\.(${BILLED_FUNCTIONS.join("|")})\\s*\\(`, "gi");

export interface FormulaCell {
  sheetId: string;
  sheetName: string;
  /** 0-based sheet row and column. */
  row: number;
  column: number;
  /** "Sheet1!C4". */
  address: string;
  formula: string;
  /** Each billed STR call in the formula, in order (a formula may hold more than one). */
  calls: BilledFunction[];
}

export interface ScreenedTable {
  sheetId: string;
  sheetName: string;
  /** 0-based sheet row of the header and column of the table's first column. */
  headerRow: number;
  left: number;
  headers: CellInput[];
  /** The rows in scope (all of them, or those the selection touches). */
  rows: TableRow[];
  /** The result block, columns relative to `left`. */
  block: ResultBlockSpan;
  /** "Sheet1!A1:P301": the table with its block. */
  address: string;
}

export interface RefreshTargets {
  scope: RefreshScope;
  /** Sheets looked at. */
  sheets: string[];
  formulas: FormulaCell[];
  tables: ScreenedTable[];
  /** Ranges to recalculate for the formulas: the selection, or each sheet's used range holding some. */
  recalculate: { sheetId: string; bounds: Bounds }[];
}

interface SheetRef {
  id: string;
  name: string;
}

export async function findRefreshTargets(run: ExcelRun, scope: RefreshScope): Promise<RefreshTargets> {
  return run(async (context) => {
    let sheets: Excel.Worksheet[];
    let selected: Bounds | undefined;
    if (scope === "selection") {
      const range = context.workbook.getSelectedRange();
      range.load("rowIndex,columnIndex,rowCount,columnCount");
      range.worksheet.load("id,name");
      await context.sync();
      selected = boundsOf(range);
      sheets = [range.worksheet];
    } else if (scope === "sheet") {
      const sheet = context.workbook.worksheets.getActiveWorksheet();
      sheet.load("id,name");
      await context.sync();
      sheets = [sheet];
    } else {
      const all = context.workbook.worksheets;
      all.load("items");
      await context.sync();
      sheets = all.items;
    }

    const targets: RefreshTargets = {
      scope,
      sheets: sheets.map((s) => s.name),
      formulas: [],
      tables: [],
      recalculate: [],
    };
    for (const sheet of sheets) {
      const used = sheet.getUsedRangeOrNullObject(true);
      used.load("rowIndex,columnIndex,rowCount,columnCount,formulas,values");
      await context.sync();
      if (used.isNullObject) continue;
      const found = scanSheet(
        { id: sheet.id, name: sheet.name },
        boundsOf(used),
        used.formulas as unknown[][],
        used.values as CellInput[][],
        selected,
      );
      targets.formulas.push(...found.formulas);
      targets.tables.push(...found.tables);
      if (found.formulas.length > 0)
        targets.recalculate.push({ sheetId: sheet.id, bounds: selected ?? boundsOf(used) });
    }
    if (
      scope === "selection" &&
      selected &&
      targets.formulas.length === 0 &&
      targets.tables.length === 0 &&
      selected.rows * selected.columns === 1
    ) {
      throw new PaneError(
        "The selected cell holds no STR formula and is not in a screened table: select the cells to refresh, or choose This sheet.",
      );
    }
    return targets;
  });
}

/** The formulas and screened tables of one sheet's used range (within `only`, the selection, when given). */
export function scanSheet(
  sheet: SheetRef,
  used: Bounds,
  formulas: readonly (readonly unknown[])[],
  values: readonly (readonly CellInput[])[],
  only?: Bounds,
): { formulas: FormulaCell[]; tables: ScreenedTable[] } {
  const inScope = (row: number, column: number) =>
    !only ||
    (row >= only.row && row < only.row + only.rows && column >= only.column && column < only.column + only.columns);
  const found: FormulaCell[] = [];
  formulas.forEach((row, r) =>
    row.forEach((f, c) => {
      if (typeof f !== "string" || !f.startsWith("=") || !inScope(used.row + r, used.column + c)) return;
      const calls = [...f.matchAll(CALL)].map((m) => (m[1] as string).toUpperCase() as BilledFunction);
      if (calls.length > 0)
        found.push({
          sheetId: sheet.id,
          sheetName: sheet.name,
          row: used.row + r,
          column: used.column + c,
          address: a1Address(sheet.name, used.row + r, used.column + c),
          formula: f,
          calls,
        });
    }),
  );

  const tables: ScreenedTable[] = [];
  const headerRows: { r: number; block: ResultBlockSpan }[] = [];
  values.forEach((row, r) => {
    const block = findResultBlock(row);
    if (block) headerRows.push({ r, block });
  });
  headerRows.forEach(({ r, block }, k) => {
    const row = values[r] as readonly CellInput[];
    // The table's columns: the header cells either side of the block, up to the first blank header.
    let first = block.start;
    while (first > 0 && !isBlank(row[first - 1])) first--;
    let last = block.start + block.width - 1;
    while (last + 1 < row.length && !isBlank(row[last + 1])) last++;
    // Its rows: down to the next screened table's header, or the end of the used range.
    const end = headerRows[k + 1]?.r ?? values.length;
    const rows: TableRow[] = [];
    for (let i = r + 1; i < end; i++)
      rows.push({ sheetRow: used.row + i, cells: (values[i] ?? []).slice(first, last + 1) });
    while (rows.length > 0 && (rows.at(-1) as TableRow).cells.every((c) => isBlank(c))) rows.pop();
    const columns = {
      row: used.row + r,
      column: used.column + first,
      rows: rows.length + 1,
      columns: last - first + 1,
    };
    const touched = only ? intersect(columns, only) : columns;
    if (!touched) return;
    const inRows = only
      ? rows.filter((x) => x.sheetRow >= touched.row && x.sheetRow < touched.row + touched.rows)
      : rows;
    // A selection of the header alone means the whole table.
    const chosen = inRows.length > 0 ? inRows : rows;
    if (chosen.length === 0) return;
    tables.push({
      sheetId: sheet.id,
      sheetName: sheet.name,
      headerRow: used.row + r,
      left: used.column + first,
      headers: row.slice(first, last + 1),
      rows: chosen,
      block: { ...block, start: block.start - first },
      address: a1Address(sheet.name, columns.row, columns.column, columns.rows, columns.columns),
    });
  });
  return { formulas: found, tables };
}
