import { CellInput } from "../inputs";
import { GENERAL_FORMAT, resultBlockHeader } from "../sheet";
import { Outcomes } from "./outcomes";
import { Plan } from "./table-plan";
import { OutCell, OutRow, blockCells } from "./report-sheets";
import { InputTable } from "./table-reader";

/*
 * The screened sheet as str-screen writes it, whatever the output: the user's columns, less any
 * earlier result block, with the new block where that was or after the widest row. The .xlsx writer
 * and the .csv and .json writers lay out these same rows, so their columns and rows agree.
 */

export interface SheetCell extends Omit<OutCell, "value"> {
  /** A user's cell keeps its own value (a date stays a date); the block's cells are OutCells. */
  value: CellInput | OutCell["value"];
}

export interface MainSheetLayout {
  /** Output columns (0-based) before the block hold the user's columns 0 … before-1. */
  before: number;
  /** The user's columns from here on follow the block. */
  afterFrom: number;
  blockWidth: number;
  /** Columns in all. */
  width: number;
}

export interface WriteSource {
  table: InputTable;
  plan: Plan;
  outcomes: Outcomes;
  sandbox: boolean;
}

export function mainSheetLayout(
  { table, plan }: Pick<WriteSource, "table" | "plan">,
  blockWidth: number,
): MainSheetLayout {
  const earlier = plan.earlierBlock;
  const before = earlier ? earlier.start : table.width;
  const afterFrom = earlier ? earlier.start + earlier.width : table.width;
  return { before, afterFrom, blockWidth, width: before + blockWidth + (table.width - afterFrom) };
}

/** The sheet's rows: how many there are, and each one's cells by output column (undefined when it is empty). */
export interface MainSheetRows {
  count: number;
  cells(r: number): (SheetCell | undefined)[] | undefined;
}

export function mainSheetRowCells(w: WriteSource): MainSheetRows {
  const { table, plan } = w;
  const header = resultBlockHeader(plan.fields, w.sandbox).map((c): OutCell => ({ ...c, bold: true }));
  const layout = mainSheetLayout(w, header.length);
  const blockOf = blockByTableRow(plan, w.outcomes);
  const cells = (r: number) => {
    const source = table.rows[r];
    const block = r === plan.headerIndex ? header : blockOf(r);
    if (!source && !block) return undefined;
    const row: (SheetCell | undefined)[] = new Array<SheetCell | undefined>(layout.width);
    source?.forEach((value, c) => {
      if (value === undefined || value === null || value === "" || (c >= layout.before && c < layout.afterFrom)) return;
      const format = table.formats[r]?.[c];
      row[c < layout.before ? c : c - layout.afterFrom + layout.before + layout.blockWidth] = {
        value: table.format === "csv" ? csvValue(value) : value,
        ...(format && format !== GENERAL_FORMAT ? { format } : {}),
        ...(r === plan.headerIndex ? { bold: true } : {}),
      };
    });
    block?.forEach((c, i) => (row[layout.before + i] = c));
    return row;
  };
  return { count: Math.max(table.rows.length, plan.headerIndex + 1), cells };
}

/** Each row of the sheet that has anything in it, by its 0-based index, as cells by output column. */
export function* mainSheetRows(w: WriteSource): Generator<{ index: number; cells: (SheetCell | undefined)[] }> {
  const rows = mainSheetRowCells(w);
  for (let r = 0; r < rows.count; r++) {
    const cells = rows.cells(r);
    if (cells) yield { index: r, cells };
  }
}

/**
 * Whether a row's cells are final, so that it can be written during the run: its outcome is in and
 * nothing about it changes after (its report file is written; kept figures come after the run).
 */
export function rowIsFinal(plan: Plan, outcomes: Outcomes): (tableRow: number) => boolean {
  const rowAt = plannedRowAt(plan);
  return (tableRow) => {
    const row = rowAt.get(tableRow);
    return row === undefined || row.kind === "blank" || outcomes.isFinal(row);
  };
}

/** The block of a data row, by its table row index; undefined for blank rows and rows outside the table. */
export function blockByTableRow(plan: Plan, outcomes: Outcomes): (tableRow: number) => OutRow | undefined {
  const rowAt = plannedRowAt(plan);
  return (tableRow) => {
    const row = rowAt.get(tableRow);
    const outcome = row === undefined ? undefined : outcomes.get(row);
    return outcome ? blockCells(outcome, plan.fields) : undefined;
  };
}

/** The planned rows by their table row. */
function plannedRowAt(plan: Plan): Map<number, Plan["rows"][number]> {
  return new Map(plan.rows.map((row) => [row.sheetRow, row]));
}

/** A CSV cell as a workbook cell: plain numbers become numbers (as Excel opens a CSV); anything else stays text. */
function csvValue(value: CellInput): CellInput {
  if (typeof value !== "string") return value;
  const t = value.trim();
  if (t === "") return null;
  // Not "02134" (a ZIP code would lose its zero) and not "1e5".
  if (/^-?(0|[1-9]\d{0,14})(\.\d+)?$/.test(t)) return Number(t);
  return value;
}
