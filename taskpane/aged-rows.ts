import { excelDateTime } from "../src/sheet";
import { TableRow } from "./excel/read-table";
import { ScreenedTable } from "./excel/scope";

/**
 * "Refresh older than N days": what has aged past a cutoff. A screened table's rows say when their
 * analysis was fetched in the block's "STR fetched" column (an Excel date, in the workbook's local
 * time, as the pane and str-screen write it); formulas leave it to the relay (RefreshGate's freshSince).
 */
export const MS_PER_DAY = 86_400_000;

/** The cutoff of "older than `days` days" at `now` (epoch ms). */
export function cutoffOf(days: number, now: number = Date.now()): number {
  if (!Number.isFinite(days) || days < 0)
    throw new RangeError(`older than must be a number of days of 0 or more; got ${String(days)}`);
  return now - days * MS_PER_DAY;
}

/** The rows of a screened table whose analysis was fetched before `cutoff`; rows without one (failed, never run) are left out. */
export function rowsFetchedBefore(
  table: Pick<ScreenedTable, "block">,
  rows: readonly TableRow[],
  cutoff: number,
): TableRow[] {
  const limit = excelDateTime(new Date(cutoff).toISOString()) as number;
  const column = table.block.start + 1;
  return rows.filter((r) => {
    const fetched = r.cells[column];
    return typeof fetched === "number" && fetched < limit;
  });
}
