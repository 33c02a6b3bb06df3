import { BatchItem, FieldInfo, FieldIssue, Operation, STRATEGIES, Strategy, isCreate } from "../contract";
import {
  CellInput,
  ColumnMapping,
  INPUT_FIELDS,
  InputField,
  NumberStyle,
  isBlank,
  readRow,
  unusualValues,
} from "../inputs";
import { ResultBlockSpan, defaultScreeningFields } from "../sheet";

/*
 * What a screening will do with each row of a table, decided before anything is sent: each row read
 * into a request, the reasons it cannot be, or blank. Nothing is dropped: bad rows stay, to be marked
 * in their own row of the output. The task pane and str-screen both plan through here; each reads
 * its own table (Excel ranges, an .xlsx or .csv file) into `SourceRow`s first.
 */

/** What the plan does with one row of the table. */
export type PlannedRow = {
  /** 0-based row of the sheet (of the file, for a CSV) the row was read from. */
  sheetRow: number;
  /** The location as the user wrote it: the address, or "lat, lng". */
  property: string;
} & (
  | { kind: "blank" }
  /** Not sent: the surface leaves its earlier result cells as they are (a row without an analysis to enhance). */
  | { kind: "kept" }
  | { kind: "invalid"; op: Operation | undefined; issues: FieldIssue[] }
  /** Valid, but outside the plausibility bounds (src/inputs/plausibility.ts): held back until the user confirms. */
  | { kind: "unusual"; op: Operation; issues: FieldIssue[] }
  /** `unusual`: the bounds it is outside of, when the user confirmed sending it anyway. */
  | { kind: "request"; op: Operation; item: number; unusual: FieldIssue[] }
);

export interface PlannedRows {
  rows: PlannedRow[];
  /** What is sent: one item per row of kind "request". */
  items: BatchItem[];
  /** Row (index into `rows`) of each item. */
  itemRows: number[];
  /** The one strategy of every row, when they share one. */
  strategy: Strategy | undefined;
  /** The strategies of the rows, in STRATEGIES order (a mixed table's columns are their union). */
  strategies?: Strategy[];
}

export interface ScreeningPlan extends PlannedRows {
  /** The result columns written for each row. */
  fields: readonly FieldInfo[];
}

export interface SourceRow {
  sheetRow: number;
  cells: readonly CellInput[];
}

export interface PlanOptions {
  /** For rows without a strategy column or value. */
  strategy: Strategy;
  /** The table's headers, so that messages name columns as the sheet does. */
  headers: readonly CellInput[];
  /** A billed refresh: every item bypasses the relay's cache. */
  refresh?: boolean;
  /** How the table writes numbers as text (src/inputs/values.ts). */
  numbers: NumberStyle;
  /** The user confirmed: rows outside the plausibility bounds are sent too. */
  acceptUnusual?: boolean;
  /**
   * Values for rows without them (the pane's loan terms: down payment, interest, mortgage years):
   * a row's own column wins, and a strategy that takes no such field is sent without it.
   */
  defaults?: Record<string, unknown>;
}

export function planRows(source: Iterable<SourceRow>, mapping: ColumnMapping, options: PlanOptions): PlannedRows {
  const rows: PlannedRow[] = [];
  const items: BatchItem[] = [];
  const itemRows: number[] = [];
  const ops = new Set<Operation>();
  for (const { sheetRow, cells } of source) {
    const property = propertyText(cells, mapping);
    const read = readRow(cells, mapping, {
      strategy: options.strategy,
      headers: options.headers,
      numbers: options.numbers,
      ...(options.defaults ? { extra: options.defaults } : {}),
    });
    if (read.kind === "blank") rows.push({ sheetRow, property, kind: "blank" });
    else if (read.kind === "invalid") {
      if (read.op) ops.add(read.op);
      rows.push({ sheetRow, property, kind: "invalid", op: read.op, issues: read.issues });
    } else {
      ops.add(read.op);
      const unusual = unusualValues(read.request).map((u) => ({
        path: columnTitle(u.field, mapping, options.headers),
        message: `${u.value} is ${u.rule}`,
      }));
      if (unusual.length > 0 && !options.acceptUnusual) {
        rows.push({ sheetRow, property, kind: "unusual", op: read.op, issues: unusual });
        continue;
      }
      itemRows.push(rows.length);
      rows.push({ sheetRow, property, kind: "request", op: read.op, item: items.length, unusual });
      items.push({ strategy: read.op, params: read.request, ...(options.refresh ? { refresh: true } : {}) });
    }
  }
  const only = ops.size === 1 ? [...ops][0] : ops.size === 0 ? options.strategy : undefined;
  const strategy = only !== undefined && isCreate(only) ? only : undefined;
  const strategies = STRATEGIES.filter((s) => ops.has(s));
  return { rows, items, itemRows, strategy, strategies };
}

/**
 * The result columns: those the user chose; else, on a table screened before, the columns that run
 * wrote (or the user kept), not the defaults again; else the defaults for the rows' strategy.
 */
export function resultFields(
  strategy: Strategy | readonly Strategy[] | undefined,
  given: { chosen?: readonly FieldInfo[] | undefined; earlier?: ResultBlockSpan | undefined },
): readonly FieldInfo[] {
  if (given.chosen) return given.chosen;
  if (given.earlier && given.earlier.fields.length > 0) return given.earlier.fields;
  return defaultScreeningFields(strategy);
}

/** Rows with a bad value, which are never sent. */
export function refusedRows(plan: PlannedRows): Extract<PlannedRow, { kind: "invalid" }>[] {
  return plan.rows.flatMap((r) => (r.kind === "invalid" ? [r] : []));
}

/** Rows held back as unusual, sent only once the user confirms. */
export function unusualRows(plan: PlannedRows): Extract<PlannedRow, { kind: "unusual" }>[] {
  return plan.rows.flatMap((r) => (r.kind === "unusual" ? [r] : []));
}

/** A request field as the sheet titles it: its column's header, or the field's label. */
function columnTitle(field: string, mapping: ColumnMapping, headers: readonly CellInput[]): string {
  const column = mapping.indexOf(field as InputField);
  const header = column < 0 ? undefined : headers[column];
  if (header !== undefined && !isBlank(header)) return String(header).trim();
  return field in INPUT_FIELDS ? INPUT_FIELDS[field as InputField].label : field;
}

/** The row's location as written: the address cell, or "lat, lng". */
function propertyText(cells: readonly CellInput[], mapping: ColumnMapping): string {
  const at = (field: InputField) => {
    const c = mapping.indexOf(field);
    const v = c < 0 ? undefined : cells[c];
    return isBlank(v) || v === undefined || v === null ? "" : v instanceof Date ? v.toISOString() : String(v).trim();
  };
  const address = at("fullAddress");
  if (address) return address;
  const lat = at("lat");
  const lng = at("lng");
  return lat || lng ? `${lat}, ${lng}` : "";
}
