import path from "node:path";
import { BatchItem, FieldInfo, FieldIssue, Operation, Strategy, isCreate } from "../contract";
import { CellInput, ColumnMapping, INPUT_FIELDS, InputField, isBlank, missingLocation, readRow, recognizeColumns } from "../inputs";
import { ResultBlockSpan, defaultScreeningFields, findResultBlock, parseFieldList } from "../sheet";
import { ScreenOptions, UsageError } from "./args";
import { InputTable } from "./table-reader";

/**
 * What a run will do with each row of the table, decided before anything is sent: the header row
 * (the first of the top rows whose headers locate a property, so a title above the table is fine),
 * which column holds what (the task pane's recognition, shared), and each row read into a request,
 * the reasons it cannot be, or blank. Nothing is dropped: bad rows stay to be marked in the output.
 */
export type PlannedRow = {
  /** 0-based row of the table (its sheet row is this + 1). */
  index: number;
  /** The location as the user wrote it, for the Comparables and Warnings sheets. */
  property: string;
} & ({ kind: "blank" } | { kind: "invalid"; op: Operation | undefined; issues: FieldIssue[] } | { kind: "request"; op: Operation; item: number });

export interface Plan {
  headerIndex: number;
  headers: CellInput[];
  mapping: ColumnMapping;
  /** The result block of an earlier run, if the table has one. */
  earlierBlock: ResultBlockSpan | undefined;
  /** Rows below the header through the last non-blank one. */
  rows: PlannedRow[];
  items: BatchItem[];
  /** Row (index into `rows`) of each item. */
  itemRows: number[];
  fields: readonly FieldInfo[];
  /** The one strategy of every row, if they share one. */
  strategy: Strategy | undefined;
}

/** How far down a header row is looked for. */
const HEADER_SEARCH_ROWS = 20;

export function planScreening(table: InputTable, options: Pick<ScreenOptions, "strategy" | "strategyGiven" | "refresh" | "fieldsText">): Plan {
  const found = findHeader(table);
  const { headerIndex, headers, mapping, earlierBlock } = found;

  let last = table.rows.length - 1;
  while (last > headerIndex && isBlankRow(table.rows[last])) last--;

  const rows: PlannedRow[] = [];
  const items: BatchItem[] = [];
  const itemRows: number[] = [];
  const ops = new Set<Operation>();
  for (let r = headerIndex + 1; r <= last; r++) {
    const cells = table.rows[r] ?? [];
    const property = propertyText(cells, mapping);
    const read = readRow(cells, mapping, { strategy: options.strategy, headers });
    if (read.kind === "blank") rows.push({ index: r, property, kind: "blank" });
    else if (read.kind === "invalid") {
      rows.push({ index: r, property, kind: "invalid", op: read.op, issues: read.issues });
      if (read.op) ops.add(read.op);
    } else {
      ops.add(read.op);
      itemRows.push(rows.length);
      rows.push({ index: r, property, kind: "request", op: read.op, item: items.length });
      items.push({ strategy: read.op, params: read.request, ...(options.refresh ? { refresh: true } : {}) });
    }
  }

  const only = ops.size === 1 ? [...ops][0] : ops.size === 0 ? options.strategy : undefined;
  const strategy = only !== undefined && isCreate(only) ? only : undefined;
  let fields: readonly FieldInfo[];
  if (options.fieldsText !== undefined) {
    // Checked again now that the rows' strategies are known: a cap rate asked of arbitrage rows only would be a column of blanks.
    const list = parseFieldList(options.fieldsText, strategy ? { strategy } : {});
    if (!list.ok) throw new UsageError(`--${list.message}${strategy && !options.strategyGiven ? ` (every row of the table is ${strategy})` : ""}`);
    fields = list.fields;
  } else if (earlierBlock && earlierBlock.fields.length > 0) {
    // A refresh writes the columns the earlier run wrote (or the user kept), not the defaults again.
    fields = earlierBlock.fields;
  } else fields = defaultScreeningFields(strategy);

  return { headerIndex, headers, mapping, earlierBlock, rows, items, itemRows, fields, strategy };
}

function findHeader(table: InputTable): { headerIndex: number; headers: CellInput[]; mapping: ColumnMapping; earlierBlock: ResultBlockSpan | undefined } {
  let firstNonBlank: number | undefined;
  for (let r = 0; r < Math.min(HEADER_SEARCH_ROWS, table.rows.length); r++) {
    const row = table.rows[r];
    if (isBlankRow(row)) continue;
    firstNonBlank ??= r;
    const headers = Array.from({ length: table.width }, (_, c) => row?.[c] ?? null);
    const earlierBlock = findResultBlock(headers);
    // The earlier results are never input, whatever their labels look like.
    const masked = headers.map((h, c) => (earlierBlock && c >= earlierBlock.start && c < earlierBlock.start + earlierBlock.width ? null : h));
    const mapping = recognizeColumns(masked);
    if (!missingLocation(mapping)) return { headerIndex: r, headers, mapping, earlierBlock };
  }
  const name = table.format === "xlsx" ? `sheet ${JSON.stringify(table.sheetName)} of ${path.basename(table.file)}` : path.basename(table.file);
  if (firstNonBlank === undefined) throw new UsageError(`${name} is empty: it needs a header row, then one row per property`);
  const seen = (table.rows[firstNonBlank] ?? []).filter((h) => !isBlank(h)).map((h) => JSON.stringify(String(h)));
  throw new UsageError(
    `${name}: ${missingLocation([]) ?? "no location column"}; the headers in row ${firstNonBlank + 1} are ${seen.join(", ")} (columns are recognised by names such as ${INPUT_FIELDS.fullAddress.names.slice(0, 3).join(", ")})`,
  );
}

function isBlankRow(row: readonly CellInput[] | undefined): boolean {
  return !row || row.every((c) => isBlank(c));
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
