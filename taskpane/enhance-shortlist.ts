import { LEADING_COLUMNS } from "../src/sheet";
import { EnhanceSteps, PlannedRow, planEnhancement } from "../src/screening";
import { PaneError } from "./pane-error";
import { ExcelRun } from "./excel/host";
import { SheetTable } from "./excel/read-table";
import { ScreeningJob } from "./screen";

/*
 * "Enhance with AI" on a shortlist: the rows of a screened table the user selects go to the relay as
 * `enhance` calls for the AI steps chosen (src/screening/enhance.ts), priced by the relay's dry run
 * first (0.10 USD a step), and the answers are written over the same rows of the result block, in
 * place: figures, fetched time and the AI's warnings. Rows without an analysis id are left alone.
 */

/** The sheet rows selected now, on the table's sheet. */
export interface RowSpan {
  first: number;
  count: number;
}

/** What the pane reads for a shortlist: the selected rows, and the Analysis id of each row of the table. */
export async function readShortlist(
  run: ExcelRun,
  table: SheetTable,
): Promise<{ selected: RowSpan; ids: Map<number, unknown> }> {
  const block = table.block;
  const at = block?.fields.findIndex((f) => f.path === "_id") ?? -1;
  if (!block || at < 0)
    throw new PaneError(
      "Enhance works on a screened table with an Analysis id column: read a table the pane or str-screen screened, with Analysis id among its result columns.",
    );
  const first = table.rows[0]?.sheetRow ?? table.headerRow + 1;
  const last = table.rows.at(-1)?.sheetRow ?? first;
  return run(async (context) => {
    const selection = context.workbook.getSelectedRange();
    selection.load("rowIndex,rowCount");
    const sheet = selection.worksheet;
    sheet.load("id");
    const column = context.workbook.worksheets
      .getItem(table.sheetId)
      .getRangeByIndexes(first, table.left + block.start + LEADING_COLUMNS + at, last - first + 1, 1);
    column.load("values");
    await context.sync();
    if (sheet.id !== table.sheetId)
      throw new PaneError(`Select the rows to enhance on ${table.sheetName}, the sheet of the table read.`);
    const ids = new Map<number, unknown>();
    column.values.forEach((row, i) => ids.set(first + i, row[0]));
    return { selected: { first: selection.rowIndex, count: selection.rowCount }, ids };
  });
}

/**
 * The enhancement of the selected rows as a job the screening run writes in place: the earlier
 * block's own columns, at its own place, for the table's rows inside the selection.
 */
export function planShortlist(
  table: SheetTable,
  selected: RowSpan,
  ids: ReadonlyMap<number, unknown>,
  steps: EnhanceSteps,
): ScreeningJob {
  const block = table.block;
  if (!block) throw new PaneError("Enhance works on a screened table: this one has no result columns.");
  const inSelection = table.rows.filter(
    (r) => r.sheetRow >= selected.first && r.sheetRow < selected.first + selected.count,
  );
  if (inSelection.length === 0)
    throw new PaneError(
      `Select the rows to enhance: the selection holds none of the table's rows (${table.rows.length} rows under the header in row ${table.headerRow + 1}).`,
    );
  // Every row is a candidate; planEnhancement keeps those without an id out of it.
  const rows: PlannedRow[] = inSelection.map((r) => ({ sheetRow: r.sheetRow, property: "", kind: "kept" }));
  const planned = planEnhancement({ rows }, (r) => ids.get(r), steps);
  return {
    ...planned,
    fields: block.fields,
    sheetId: table.sheetId,
    sheetName: table.sheetName,
    headerRow: table.headerRow,
    blockColumn: table.left + block.start,
    writeWidth: block.width,
  };
}
