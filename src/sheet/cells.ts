/*
 * Cells as every surface writes them: a value and, for numbers, the Excel number format that makes
 * it read right (`$#,##0`, `0.0%`). The custom functions return them (see cell-values.ts), the task
 * pane writes `range.values` + `range.numberFormat`, the CLI writes them with exceljs: one grid, so
 * the three show the same thing.
 */

/** What Excel holds in a cell. Never `undefined` or `null`: a missing value is "" (an empty-looking cell, not 0). */
export type Cell = string | number | boolean;

export interface FormattedCell {
  value: Cell;
  /** An Excel number format (contract's UNIT_FORMATS); absent → Excel's "General". */
  format?: string;
}

export type CellRow = FormattedCell[];

/** Rows of cells. Every layout in this folder is rectangular: Excel spills and ranges are. */
export type Grid = CellRow[];

/** Excel's default number format, for cells that carry none. */
export const GENERAL_FORMAT = "General";

/** The blank cell: "" so that formulas like `=B3*2` give #VALUE! instead of a silent 0. */
export const BLANK: FormattedCell = Object.freeze({ value: "" });

export function cell(value: Cell, format?: string): FormattedCell {
  return format === undefined ? { value } : { value, format };
}

/** A label cell (plain text, General format). */
export function text(value: string): FormattedCell {
  return { value };
}

/** The two parallel arrays Excel's Range and exceljs take. */
export interface SplitGrid {
  values: Cell[][];
  formats: string[][];
}

/** Splits a grid for `range.values` and `range.numberFormat` (or exceljs `cell.value` / `cell.numFmt`). */
export function splitGrid(grid: readonly (readonly FormattedCell[])[]): SplitGrid {
  return {
    values: grid.map((row) => row.map((c) => c.value)),
    formats: grid.map((row) => row.map((c) => c.format ?? GENERAL_FORMAT)),
  };
}

/** True when every row has the same, non-zero number of cells: what Excel needs to spill or write a range. */
export function isRectangular(grid: readonly (readonly unknown[])[]): boolean {
  const width = grid[0]?.length ?? 0;
  return width > 0 && grid.every((row) => row.length === width);
}

/** Most characters an Excel cell holds; longer text is cut (with an ellipsis) rather than refused by Excel. */
export const MAX_CELL_TEXT = 32_767;

export function clipText(value: string, max: number): string {
  return value.length <= max ? value : `${value.slice(0, Math.max(0, max - 1))}…`;
}
