import { Analysis, COMPARABLE_COLUMNS, moneyFormat } from "../../src/contract";
import { Cell, comparablesTable } from "../../src/sheet";
import { PaneError } from "../pane-error";
import { ExcelRun, a1Address } from "./host";
import { excelCell } from "./writer";

/**
 * "Insert as table": an analysis's comparables on a new sheet, as an Excel table (sortable,
 * filterable) with the same columns and formats as STR.COMPS, and beside it the revenue percentiles
 * with a column chart of them. Two syncs: one for the sheet names, one for everything else.
 * `warnings` (warningTexts of the answer) fill the table's last column, as in STR.COMPS.
 */
export interface PercentilePoint {
  label: string;
  value: number;
}

/** The analysis's annual revenue at p25, p50, p75 and p90 (those it has). */
export function revenuePercentiles(analysis: Analysis | undefined): PercentilePoint[] {
  const points: PercentilePoint[] = [];
  for (const [key, label] of [
    ["p25", "25th"],
    ["p50", "Median"],
    ["p75", "75th"],
    ["p90", "90th"],
  ] as const) {
    const value = analysis?.revenue?.[key];
    if (typeof value === "number" && Number.isFinite(value)) points.push({ label, value });
  }
  return points;
}

/** Excel's limit on a sheet name, and the characters it refuses in one. */
const MAX_SHEET_NAME = 31;
const BAD_SHEET_CHARS = /[[\]:*?/\\]/g;

export function uniqueSheetName(wanted: string, existing: readonly string[]): string {
  const base = wanted.replace(BAD_SHEET_CHARS, " ").slice(0, MAX_SHEET_NAME).trim();
  const taken = new Set(existing.map((n) => n.toLowerCase()));
  if (!taken.has(base.toLowerCase())) return base;
  for (let n = 2; ; n++) {
    const suffix = ` (${n})`;
    const name = `${base.slice(0, MAX_SHEET_NAME - suffix.length)}${suffix}`;
    if (!taken.has(name.toLowerCase())) return name;
  }
}

export async function insertComparablesSheet(
  run: ExcelRun,
  analysis: Analysis,
  warnings: readonly string[] = [],
): Promise<{ sheetName: string; address: string; rows: number }> {
  const table = comparablesTable(analysis, undefined, warnings);
  if (!table.ok) throw new PaneError(table.message);
  const grid = table.grid;
  const rows = (analysis.comparables ?? []).length;
  if (rows === 0) throw new PaneError("This analysis has no comparables to insert.");
  const id = typeof analysis._id === "string" ? analysis._id : "analysis";
  const linkColumn = COMPARABLE_COLUMNS.findIndex((c) => c.unit === "url");

  return run(async (context) => {
    const sheets = context.workbook.worksheets;
    sheets.load("items");
    await context.sync();
    const sheetName = uniqueSheetName(
      `Comps ${id.slice(0, 12)}`,
      sheets.items.map((s) => s.name),
    );
    const sheet = sheets.add(sheetName);

    const width = grid[0]?.length ?? COMPARABLE_COLUMNS.length;
    const range = sheet.getRangeByIndexes(0, 0, grid.length, width);
    const cells = grid.map((row) => row.map((c, i) => excelCell(c, i === linkColumn)));
    range.numberFormat = cells.map((row) => row.map((c) => c.format));
    range.values = cells.map((row) => row.map((c) => c.value));
    const excelTable = sheet.tables.add(range, true);
    excelTable.showBandedRows = true;
    range.format.autofitColumns();

    // The percentiles two columns right of the table, and a chart of them below.
    const points = revenuePercentiles(analysis);
    if (points.length > 0) {
      const at = width + 1;
      const block = sheet.getRangeByIndexes(0, at, points.length + 1, 2);
      const values: Cell[][] = [["Revenue percentile", "Annual revenue"], ...points.map((p) => [p.label, p.value])];
      block.numberFormat = values.map((row, r) =>
        row.map((_, c) => (r > 0 && c === 1 ? moneyFormat(analysis.currency) : "General")),
      );
      block.values = values;
      block.format.autofitColumns();
      const chart = sheet.charts.add("ColumnClustered", block, "Columns");
      chart.title.text = `Annual revenue by percentile — ${typeof analysis.fullAddress === "string" ? analysis.fullAddress : id}`;
      chart.legend.visible = false;
      chart.setPosition(
        sheet.getRangeByIndexes(points.length + 2, at, 1, 1),
        sheet.getRangeByIndexes(points.length + 17, at + 6, 1, 1),
      );
    }
    sheet.activate();
    await context.sync();
    return { sheetName, address: a1Address(sheetName, 0, 0, grid.length, width), rows };
  });
}
