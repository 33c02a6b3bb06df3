import { Analysis, COMPARABLE_COLUMNS, nearestFirst } from "../contract";
import { BLANK, CellRow, FormattedCell, Grid, text } from "./cells";
import { WARNINGS_HEADER } from "./fields";
import { cellValue, unitFormat, valueAt } from "./field-values";
import { warningsCell } from "./warnings";

/*
 * The comparables table (STR.COMPS, the task pane's viewer): a header row, then one row per
 * comparable listing, nearest first (`maxRows` keeps the nearest), with the same units and formats as the card (occupancy as a fraction under a %
 * format). Always a rectangle with a header, even with nothing to list, so what refers to it keeps working.
 * The last column holds the answer's warnings (warningTexts) in every row, as a screening row does:
 * a comparable copied out of a sandbox analysis still says it is simulated.
 */

export type ComparablesResult = { ok: true; grid: Grid } | { ok: false; message: string };

export const NO_COMPARABLES = "No comparables in this analysis";

/**
 * `maxRows` caps the data rows (the header is not counted); omitted → every comparable (the service
 * sends at most 50). `warnings` are the answer's (warningTexts), repeated in each row's last cell.
 */
export function comparablesTable(
  analysis: Analysis | undefined,
  maxRows?: unknown,
  warnings: readonly string[] = [],
): ComparablesResult {
  const cap = readMaxRows(maxRows);
  if (!cap.ok) return cap;
  const header: CellRow = [...COMPARABLE_COLUMNS.map((column) => text(column.label)), text(WARNINGS_HEADER)];
  const notes = text(warningsCell(warnings));
  const comparables = analysis?.comparables ?? [];
  if (comparables.length === 0) {
    return { ok: true, grid: [header, [text(NO_COMPARABLES), ...COMPARABLE_COLUMNS.slice(1).map(() => BLANK), notes]] };
  }
  const rows = nearestFirst(comparables)
    .slice(0, cap.value)
    .map((comparable) => [
      ...COMPARABLE_COLUMNS.map((column): FormattedCell => {
        const value = cellValue(valueAt(comparable, column.key), column.unit);
        return value === "" ? BLANK : { value, format: unitFormat(column.unit, analysis?.currency, value) };
      }),
      notes,
    ]);
  return { ok: true, grid: [header, ...rows] };
}

/** Reads the `maxRows` argument: blank → no cap; else a whole number of 1 or more. */
export function readMaxRows(input: unknown): { ok: true; value: number | undefined } | { ok: false; message: string } {
  if (input === undefined || input === null || input === "") return { ok: true, value: undefined };
  if (typeof input === "number" && Number.isInteger(input) && input >= 1) return { ok: true, value: input };
  return { ok: false, message: `maxRows must be a whole number of 1 or more; got ${describe(input)}` };
}

function describe(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value.length > 30 ? `${value.slice(0, 27)}...` : value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return Array.isArray(value) ? "a range" : typeof value;
}
