import { COMPARABLE_COLUMNS, FieldInfo, isWebAddress } from "../contract";
import {
  unitFormat,
  Cell,
  DATE_TIME_FORMAT,
  ERROR_MARK,
  FormattedCell,
  LEADING_COLUMNS,
  MODE_TEXT,
  MONTHLY_COLUMNS,
  WARNINGS_HEADER,
  WARNING_MARK,
  excelDateTime,
  warningsCell,
} from "../sheet";
import { PlannedRow } from "../screening";
import { Outcomes, SpooledOutcome } from "./outcomes";
import { Plan } from "./table-plan";
import { RunSummary } from "./summary";

/*
 * The cells of everything str-screen writes besides the user's own columns: the result block of each
 * row, and the Comparables, Warnings and Summary sheets. Both writers (a new workbook, streamed; an
 * in-place refresh) lay out these same rows.
 */

export interface OutCell extends FormattedCell {
  /** Written as a hyperlink to this address. */
  link?: string;
  bold?: boolean;
}

export type OutRow = OutCell[];

/** Names no user will have chosen for a sheet of their own, so that their own "Summary" never blocks a refresh. */
export const COMPARABLES_SHEET = "STR Comparables";
export const WARNINGS_SHEET = "STR Warnings";
export const SUMMARY_SHEET = "STR Summary";
export const MONTHLY_SHEET = "STR Monthly";
export const REPORT_SHEETS = [COMPARABLES_SHEET, MONTHLY_SHEET, WARNINGS_SHEET, SUMMARY_SHEET] as const;
export type ReportSheet = (typeof REPORT_SHEETS)[number];

/** The names str-screen wrote its report under before: an in-place refresh replaces such sheets when their first row is ours. */
export const EARLIER_REPORT_NAMES: Readonly<Record<string, ReportSheet>> = {
  Comparables: COMPARABLES_SHEET,
  Warnings: WARNINGS_SHEET,
  Summary: SUMMARY_SHEET,
};

const ROW = "Row";
const PROPERTY = "Property";
export const COMPARABLES_HEADER = [
  ROW,
  PROPERTY,
  "Strategy",
  "Analysis id",
  ...COMPARABLE_COLUMNS.map((c) => c.label),
  WARNINGS_HEADER,
];
export const WARNINGS_HEADER_ROW = [ROW, PROPERTY, "Strategy", "Kind", "Message"];
export const MONTHLY_HEADER = [
  ROW,
  PROPERTY,
  "Strategy",
  "Analysis id",
  ...MONTHLY_COLUMNS.map((c) => c.label),
  WARNINGS_HEADER,
];
export const SUMMARY_TITLE = "STR screening summary";

/** True when a sheet's first row is the one str-screen writes in report sheet `kind`: only such a sheet is replaced. */
export function isReportSheet(kind: ReportSheet, firstRow: readonly unknown[]): boolean {
  const text = firstRow.map((v) => (typeof v === "string" ? v : ""));
  if (kind === SUMMARY_SHEET) return text[0] === SUMMARY_TITLE;
  const header =
    kind === COMPARABLES_SHEET ? COMPARABLES_HEADER : kind === MONTHLY_SHEET ? MONTHLY_HEADER : WARNINGS_HEADER_ROW;
  return header.slice(0, 4).every((h, i) => text[i] === h);
}

/** The first row of a sheet as values. */
export function firstRowOf(sheet: { getRow(n: number): { values: unknown } }): unknown[] {
  const first = sheet.getRow(1).values;
  return Array.isArray(first) ? first.slice(1) : [];
}

const bold = (value: Cell): OutCell => ({ value, bold: true });

/** Figures that can fall below zero (a cash flow, a return, DSCR): shown red when they do. */
const canBeNegative = (field: FieldInfo) =>
  (field.group === "Cash flow" || field.group === "Investor metrics") && field.unit !== "text";

/** `$#,##0` → `$#,##0;[Red]-$#,##0`: the format an analyst gives a cash-flow column by hand. */
export function redWhenNegative(format: string): string {
  return format.includes(";") ? format : `${format};[Red]-${format}`;
}

/** A row's result block as written: report links become hyperlinks (to its kept file, if any), figures below zero red. */
export function blockCells(outcome: SpooledOutcome, fields: readonly FieldInfo[]): OutRow {
  return outcome.cells.map((c, i) => {
    const field = fields[i - LEADING_COLUMNS];
    if (field?.unit === "url" && outcome.reportFile) return { value: outcome.reportFile, link: outcome.reportFile };
    if (field?.unit === "url" && outcome.reportNotKept) return { value: `report not kept: ${outcome.reportNotKept}` };
    if (field?.unit === "url" && isWebAddress(c.value)) return { ...c, link: c.value };
    if (field && canBeNegative(field) && typeof c.value === "number" && c.format)
      return { ...c, format: redWhenNegative(c.format) };
    return c;
  });
}

function strategyText(row: PlannedRow): string {
  return "op" in row ? (row.op ?? "") : "";
}

/** Comparables of every answered row, in the table's order: the row, the property, the comparable, then the row's warnings (as STR.COMPS). */
export function* comparablesRows(plan: Plan, outcomes: Outcomes): Generator<OutRow> {
  yield COMPARABLES_HEADER.map(bold);
  for (const row of plan.rows) {
    const outcome = outcomes.get(row);
    if (!outcome?.comps) continue;
    const warnings: OutCell = { value: warningsCell(outcome.warnings) };
    for (const values of outcomes.comparables(outcome)) {
      const cells: OutRow = [
        { value: row.sheetRow + 1, format: "0" },
        { value: row.property },
        { value: strategyText(row) },
        { value: outcome.analysisId ?? "" },
      ];
      COMPARABLE_COLUMNS.forEach((column, i) => {
        const value = values[i] ?? "";
        if (value === "") cells.push({ value: "" });
        // Text needs no format; leaving it off keeps thousands of rows quick to write.
        else if (typeof value === "string")
          cells.push({ value, ...(column.unit === "url" && isWebAddress(value) ? { link: value } : {}) });
        else cells.push({ value, format: unitFormat(column.unit, outcome.currency, value) });
      });
      cells.push(warnings);
      yield cells;
    }
  }
}

/** One row per warning and per failed row, in the table's order. */
export function* warningsRows(plan: Plan, outcomes: Outcomes): Generator<OutRow> {
  yield WARNINGS_HEADER_ROW.map(bold);
  for (const row of plan.rows) {
    const outcome = outcomes.get(row);
    if (!outcome) continue;
    const lead: OutRow = [
      { value: row.sheetRow + 1, format: "0" },
      { value: row.property },
      { value: strategyText(row) },
    ];
    for (const warning of outcome.warnings) yield [...lead, { value: `${WARNING_MARK} Warning` }, { value: warning }];
    if (outcome.error)
      yield [
        ...lead,
        { value: `${ERROR_MARK} ${outcome.status === "stopped" ? "Not screened" : "Error"}` },
        { value: outcome.error },
      ];
  }
}

/** The Summary row that records what a run sent by (read back by earlier-run.ts): the options that give it, as JSON. */
export const SCREENED_WITH = "Screened with";

function screenedWithRow(s: Pick<RunSummary, "strategy" | "decimal">): OutRow {
  const args = ["--strategy", s.strategy, ...(s.decimal ? [`--decimal-${s.decimal}`] : [])];
  return [{ value: SCREENED_WITH }, { value: JSON.stringify(args) }];
}

function refreshText(s: Pick<RunSummary, "refresh" | "refreshOlderThan" | "enhance">): string {
  if (s.refresh) return "Yes: every row fetched again (billed)";
  if (s.refreshOlderThan !== undefined)
    return `Rows fetched more than ${s.refreshOlderThan} days before: fetched again (billed); the others from the cache`;
  if (s.enhance) {
    const steps = [s.enhance.addAIComps ? "AI comparables" : "", s.enhance.addAIExpenseEstimates ? "AI expenses" : ""];
    return `Enhanced with ${steps.filter((t) => t !== "").join(" and ")} (0.10 USD a step that completes)`;
  }
  return "No: analyses already made come from the cache";
}

/** The Summary sheet: what ran, where, when, what it found and what it cost. */
export function summaryRows(s: RunSummary): OutRow[] {
  const finished = excelDateTime(s.finishedAt.toISOString());
  const count = (label: string, value: number): OutRow => [{ value: label }, { value, format: "#,##0" }];
  return [
    [bold(SUMMARY_TITLE), { value: "" }],
    [{ value: "Mode" }, { value: s.mode === "sandbox" ? MODE_TEXT.sandbox : MODE_TEXT.live }],
    [
      { value: "Date" },
      finished === undefined ? { value: s.finishedAt.toISOString() } : { value: finished, format: DATE_TIME_FORMAT },
    ],
    [{ value: "Input" }, { value: s.input }],
    [{ value: "Sheet" }, { value: s.sheet }],
    [{ value: "Output" }, { value: s.inPlace ? `${s.out} (refreshed in place)` : s.out }],
    [
      { value: "Strategy" },
      { value: s.perRowStrategy ? `${s.strategy} unless the row's strategy column says otherwise` : s.strategy },
    ],
    screenedWithRow(s),
    [{ value: "Refresh" }, { value: refreshText(s) }],
    [{ value: "Relay" }, { value: s.relay }],
    count("Rows", s.rows),
    count("Done", s.done),
    count("Created", s.created),
    count("Cached", s.cached),
    count("Duplicates", s.duplicate),
    count("Failed", s.failed),
    count("Invalid (of the failed)", s.invalid),
    count("Unusual, not sent (of the failed)", s.unusual),
    count("Not reached (of the failed)", s.notReached),
    count("With warnings", s.withWarnings),
    count("Blank", s.blank),
    [{ value: "Cost (USD)" }, { value: s.costUSD, format: "$#,##0.00" }],
    [
      { value: "Stopped early" },
      { value: s.stopped ? "Yes (Ctrl-C): run again to finish; rows already answered are free" : "No" },
    ],
    [{ value: "Elapsed (s)" }, { value: Math.round(s.elapsedSeconds * 10) / 10, format: "0.0" }],
  ];
}
