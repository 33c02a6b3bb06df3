import { FIELD_CATALOGUE, FieldInfo, RelayAnswer, RelayErrorBody, findField } from "../contract";
import { findMaxBidField } from "../model";
import { BLANK, CellRow, FormattedCell, text } from "./cells";
import { DATE_TIME_FORMAT, excelDateTime } from "./excel-date";
import { WARNINGS_HEADER, fieldsHeader } from "./fields";
import { ScreeningResult, screeningRow } from "./screening";

/*
 * The result block written beside a screened table, by the task pane in Excel and by str-screen in
 * its output workbook: a status, when the analysis was fetched, then the screening row that
 * `=STR.BUY(…, fields)` spills (the fields, then warnings). "STR status" marks where the block
 * starts, so a later run — a re-screen or a portfolio refresh, from either surface — finds it,
 * replaces it, and never reads it as input ("Monthly rent" and "Bedrooms" are result labels and
 * input headers alike).
 */

export const STATUS_HEADER = "STR status";
export const FETCHED_HEADER = "STR fetched";

export type RowStatus = "created" | "cached" | "duplicate" | "failed" | "stopped";

export const STATUS_TEXT: Readonly<Record<RowStatus, string>> = {
  created: "Created",
  cached: "Cached",
  duplicate: "Duplicate",
  failed: "Failed",
  stopped: "Stopped",
};

/** Columns of the block before the fields. */
export const LEADING_COLUMNS = 2;

export function resultBlockHeader(fields: readonly FieldInfo[], sandbox: boolean): CellRow {
  return [text(STATUS_HEADER), text(FETCHED_HEADER), ...fieldsHeader(fields, { sandbox })];
}

export function resultBlockWidth(fields: readonly FieldInfo[]): number {
  return LEADING_COLUMNS + fields.length + 1;
}

/** What a row's status is from its batch line: the relay says whether it was cached or shared with an identical item. */
export function rowStatusOf(body: RelayAnswer | RelayErrorBody): RowStatus {
  if (!("relay" in body)) return "failed";
  if (body.relay.cached) return "cached";
  return body.relay.shared === true ? "duplicate" : "created";
}

/** One row of the block: status, fetched (an Excel date), then the screening row. */
export function resultBlockRow(result: ScreeningResult, fields: readonly FieldInfo[], status: RowStatus): CellRow {
  const fetchedAt = "answer" in result ? result.answer.relay.fetchedAt : undefined;
  const serial = fetchedAt === undefined ? undefined : excelDateTime(fetchedAt);
  const fetched: FormattedCell = serial === undefined ? BLANK : { value: serial, format: DATE_TIME_FORMAT };
  return [text(STATUS_TEXT[status]), fetched, ...screeningRow(result, fields)];
}

export interface ResultBlockSpan {
  /** 0-based column of the status header. */
  start: number;
  width: number;
  /** The fields its headers name, in order (what a refresh writes again). */
  fields: FieldInfo[];
}

const LABELS = new Set(FIELD_CATALOGUE.map((f) => f.label));

/**
 * The result block in a header row: from "STR status" to the first "Warnings…" header after it;
 * without one (a user deleted it), through the fetched and field-label headers that follow.
 */
export function findResultBlock(headers: readonly unknown[]): ResultBlockSpan | undefined {
  const start = headers.findIndex((h) => headerText(h) === STATUS_HEADER);
  if (start < 0) return undefined;
  let end = -1;
  for (let c = start + 1; c < headers.length; c++) {
    if (headerText(headers[c]).startsWith(WARNINGS_HEADER)) {
      end = c;
      break;
    }
  }
  if (end < 0) {
    end = start;
    while (
      end + 1 < headers.length &&
      (headerText(headers[end + 1]) === FETCHED_HEADER || blockField(headerText(headers[end + 1])) !== undefined)
    )
      end++;
  }
  const fields: FieldInfo[] = [];
  for (let c = start + 1; c <= end; c++) {
    const field = blockField(headerText(headers[c]));
    if (field) fields.push(field);
  }
  return { start, width: end - start + 1, fields };
}

/** The field a block header names: a catalogue label, or a max-bid column ("Max bid (dscr>=1.25)"). */
function blockField(header: string): FieldInfo | undefined {
  return LABELS.has(header) ? findField(header) : findMaxBidField(header);
}

function headerText(h: unknown): string {
  return typeof h === "string" ? h.trim() : "";
}

/** Whether column `c` of a header row lies in the block: an earlier run's results are never input, whatever their labels look like. */
export function isInBlock(block: ResultBlockSpan | undefined, c: number): boolean {
  return block !== undefined && c >= block.start && c < block.start + block.width;
}

/** The headers with the block's columns blanked, for recognising the input columns. */
export function maskBlock<T>(headers: readonly T[], block: ResultBlockSpan | undefined): (T | null)[] {
  return headers.map((h, c) => (isInBlock(block, c) ? null : h));
}
