import { FieldInfo, RelayAnswer, RelayErrorBody, STRATEGIES, Strategy, findField } from "../contract";
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
const DEFAULT_FIELDS: Readonly<Record<Strategy, readonly string[]>> = {
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
};

/**
 * A table mixing strategies gets the union of their own columns, in this order, each blank in the
 * rows of a strategy without that figure: a co-host row still shows its commission, a buy row its
 * cap rate and cash invested.
 */
const MIXED_ORDER: readonly string[] = [
  "revenue.p50",
  "adr.p50",
  "occupancy.p50",
  "monthlyRentUSD",
  "yearOneCashFlowUSD",
  "yearOneCashOnCashPercentage",
  "yearOneCapRatePercentage",
  "totalCashInvestment",
  "yearOneCohostCommissionUSD",
  "yearOneCohostReturnUSD",
  "url",
  "_id",
];

/**
 * The default fields for a table of one strategy, or of several: those named (the strategies its
 * rows have), or any (`undefined`, when the rows' strategies are not known).
 */
export function defaultScreeningFields(strategy?: Strategy | readonly Strategy[]): FieldInfo[] {
  const named = typeof strategy === "string" ? [strategy] : (strategy ?? []);
  const strategies = named.length === 0 ? STRATEGIES : named;
  const paths =
    strategies.length === 1
      ? DEFAULT_FIELDS[strategies[0] as Strategy]
      : MIXED_ORDER.filter((path) => strategies.some((s) => DEFAULT_FIELDS[s].includes(path)));
  return paths.map((path) => {
    const field = findField(path);
    if (!field) throw new Error(`default screening field ${path} is not in the catalogue`);
    return field;
  });
}
