import { FieldInfo, RelayAnswer, RelayErrorBody, Strategy, findField } from "../contract";
import { BLANK, CellRow, Grid, text } from "./cells";
import { sheetError } from "./errors";
import { fieldsHeader, fieldsRow } from "./fields";

/*
 * A screening table: a header, then one row per property, the same row `=STR.BUY(…, fields)` spills.
 * The task pane writes it beside the user's table and the CLI into its output workbook, so neither
 * repeats the layout. A row whose call failed is still there (rows stay aligned with the input), its
 * fields blank and its last cell saying why.
 */

/** One property's outcome: an answer, or whatever the call failed with (a RelayCallError, an error body…). */
export type ScreeningResult = { answer: RelayAnswer } | { error: unknown };

/** Marks a failed row's last cell, apart from ⚠ warnings: the row has no figures at all. */
export const ERROR_MARK = "✖";

export function screeningTable(results: readonly ScreeningResult[], fields: readonly FieldInfo[]): Grid {
  const sandbox = results.some((r) => "answer" in r && r.answer.relay.sandbox);
  return [fieldsHeader(fields, { sandbox }), ...results.map((r) => screeningRow(r, fields))];
}

/** One row, for writing rows as they arrive (batch lines come in completion order). */
export function screeningRow(result: ScreeningResult, fields: readonly FieldInfo[]): CellRow {
  if ("answer" in result) return fieldsRow(result.answer, fields);
  // The table's last column has room, unlike a cell's error flyout: the whole story, not the clipped one.
  return [...fields.map(() => BLANK), text(`${ERROR_MARK} ${sheetError(result.error).detail}`)];
}

/** A batch line's body (or any relay answer or error body) as a screening result. */
export function screeningResultOf(body: RelayAnswer | RelayErrorBody): ScreeningResult {
  return "relay" in body ? { answer: body } : { error: body };
}

/** What to screen when the user names no fields: the figures investors sort a list by, then the links. */
const DEFAULT_FIELDS: Readonly<Record<Strategy | "mixed", readonly string[]>> = {
  buy: [
    "revenue.p50",
    "adr.p50",
    "occupancy.p50",
    "yearOneCashFlowUSD",
    "yearOneCashOnCashPercentage",
    "yearOneCapRatePercentage",
    "totalCashInvestment",
    "url",
    "_id",
  ],
  owned: [
    "revenue.p50",
    "adr.p50",
    "occupancy.p50",
    "yearOneCashFlowUSD",
    "yearOneCashOnCashPercentage",
    "yearOneCapRatePercentage",
    "totalCashInvestment",
    "url",
    "_id",
  ],
  arb: [
    "revenue.p50",
    "adr.p50",
    "occupancy.p50",
    "monthlyRentUSD",
    "yearOneCashFlowUSD",
    "yearOneCashOnCashPercentage",
    "totalCashInvestment",
    "url",
    "_id",
  ],
  cohost: [
    "revenue.p50",
    "adr.p50",
    "occupancy.p50",
    "yearOneCohostCommissionUSD",
    "yearOneCohostReturnUSD",
    "url",
    "_id",
  ],
  // A table mixing strategies: fields most of them have (a co-host row leaves cash flow blank).
  mixed: [
    "revenue.p50",
    "adr.p50",
    "occupancy.p50",
    "yearOneRevenueUSD",
    "yearOneCashFlowUSD",
    "yearOneCashOnCashPercentage",
    "url",
    "_id",
  ],
};

/** The default fields for a table of one strategy, or of several (`undefined`). */
export function defaultScreeningFields(strategy?: Strategy): FieldInfo[] {
  return DEFAULT_FIELDS[strategy ?? "mixed"].map((path) => {
    const field = findField(path);
    if (!field) throw new Error(`default screening field ${path} is not in the catalogue`);
    return field;
  });
}
