import { columnName } from "../../src/sheet";
import { ExcelRun, a1Address } from "./host";
import { Bounds, READ_CHUNK_ROWS, boundsOf, intersect } from "./read-table";

/**
 * Before results are written beside a table: what is already in the cells they would cover. The
 * header row alone says little — notes typed in a column with no header, a formula in row 300 — so
 * the whole block is read (formulas, so a formula that shows "" still counts). Cells of an earlier
 * result block of ours, which the header "STR status" marks, are ours to replace; anything else is
 * the user's, and is only overwritten if the user says so (the pane asks).
 */
export interface Destination {
  sheetId: string;
  sheetName: string;
  /** 0-based sheet rows written: the header row through the table's last row. */
  top: number;
  rows: number;
  /** 0-based sheet column where the block starts, and its width. */
  left: number;
  width: number;
  /** Columns from `left` that hold an earlier result block of ours (0 when none). */
  oursWidth: number;
}

export interface DestinationCheck {
  /** Cells of the block holding something of the user's: a value or a formula. */
  occupied: number;
  /** The first of them, for the question: "Deals!H5" and what it holds. */
  first: { address: string; content: string } | undefined;
  /** The first column at or right of `left` where the block covers nothing of the user's. */
  freeLeft: number;
}

export async function checkDestination(run: ExcelRun, d: Destination): Promise<DestinationCheck> {
  return run(async (context) => {
    const sheet = context.workbook.worksheets.getItem(d.sheetId);
    const used = sheet.getUsedRangeOrNullObject(true);
    used.load("rowIndex,columnIndex,rowCount,columnCount");
    await context.sync();
    if (used.isNullObject) return { occupied: 0, first: undefined, freeLeft: d.left };
    // From the block's first column to the used range's right edge, in the block's rows: past that edge all is blank.
    const usedBounds = boundsOf(used);
    const right = usedBounds.column + usedBounds.columns;
    const area = intersect(
      { row: d.top, column: d.left, rows: d.rows, columns: Math.max(0, right - d.left) },
      usedBounds,
    );
    const formulas: unknown[][] = [];
    for (let r = 0; area && r < area.rows; r += READ_CHUNK_ROWS) {
      const part = sheet.getRangeByIndexes(
        area.row + r,
        area.column,
        Math.min(READ_CHUNK_ROWS, area.rows - r),
        area.columns,
      );
      part.load("formulas");
      await context.sync();
      for (const row of part.formulas as unknown[][]) formulas.push(row);
    }
    return area ? summarize(d, area, formulas) : { occupied: 0, first: undefined, freeLeft: d.left };
  });
}

function summarize(d: Destination, area: Bounds, formulas: readonly (readonly unknown[])[]): DestinationCheck {
  const isOurs = (column: number) => column >= d.left && column < d.left + d.oursWidth;
  const theirs = new Set<number>();
  let occupied = 0;
  let first: DestinationCheck["first"];
  formulas.forEach((row, r) =>
    row.forEach((f, i) => {
      const column = area.column + i;
      if (isEmpty(f) || isOurs(column)) return;
      theirs.add(column);
      if (column >= d.left + d.width) return;
      occupied++;
      first ??= { address: a1Address(d.sheetName, area.row + r, column), content: clip(String(f)) };
    }),
  );
  // Moved right, the block leaves an earlier block of ours where it is: its columns are in the way then.
  const blocked = (column: number, start: number) => (isOurs(column) ? start !== d.left : theirs.has(column));
  let freeLeft = d.left;
  for (let c = d.left; c < freeLeft + d.width; c++) if (blocked(c, freeLeft)) freeLeft = c + 1;
  return { occupied, first, freeLeft };
}

function isEmpty(formula: unknown): boolean {
  return formula === "" || formula === null || formula === undefined;
}

function clip(text: string): string {
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

/** "columns H–Q" or "column H", for messages. */
export function columnsText(left: number, width: number): string {
  return width === 1 ? `column ${columnName(left)}` : `columns ${columnName(left)}–${columnName(left + width - 1)}`;
}

/** Where a screening's block would go, as planned (src: taskpane/screen.ts's job) beside the table read. */
export function destinationOf(
  job: {
    sheetId: string;
    sheetName: string;
    headerRow: number;
    blockColumn: number;
    writeWidth: number;
    rows: readonly { sheetRow: number }[];
  },
  earlier: { left: number; width: number } | undefined,
): Destination {
  const last = job.rows.reduce((m, r) => Math.max(m, r.sheetRow), job.headerRow);
  return {
    sheetId: job.sheetId,
    sheetName: job.sheetName,
    top: job.headerRow,
    rows: last - job.headerRow + 1,
    left: job.blockColumn,
    width: job.writeWidth,
    oursWidth: earlier && earlier.left === job.blockColumn ? earlier.width : 0,
  };
}

/** What the user chose when the block would cover their cells: write further right (the default) or over them. */
export type Placement = "right" | "overwrite";

/** The job as it will write: unchanged when nothing of the user's is in the way or they chose to overwrite; else from `freeLeft`, `width` wide. */
export function placeBlock<J extends { blockColumn: number; writeWidth: number }>(
  job: J,
  check: DestinationCheck,
  placement: Placement,
  width: number,
): J {
  if (check.occupied === 0 || placement === "overwrite") return job;
  return { ...job, blockColumn: check.freeLeft, writeWidth: width };
}
