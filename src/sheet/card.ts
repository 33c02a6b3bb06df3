import { Analysis, FIELD_CATALOGUE, FieldInfo, STRATEGIES, SessionAnswer, Strategy, fieldsOf } from "../contract";
import { CellRow, Grid, cell, text } from "./cells";
import { analysisOf, strategyOf, warningTexts } from "./answer";
import { DATE_TIME_FORMAT, excelDateTime } from "./excel-date";
import { fieldCell, readField } from "./values";
import { WARNING_MARK } from "./warnings";

/*
 * The card: what `=STR.BUY(…)` spills when no `fields` are given. Two columns, label and value:
 *
 *   Mode            Sandbox (simulated data) | Live
 *   Warnings        None | 2: see the ⚠ rows at the end
 *   <every field of the strategy, in catalogue order: property, revenue, nightly rate and occupancy
 *    percentiles, cash flow, financing, report link, analysis id, currency>
 *   Fetched         2025-06-01 14:03 (an Excel date)
 *   Cached          Yes: … | No: …
 *   ⚠ Warning       one row per warning
 *
 * Why this shape:
 * - Every field of the strategy has its row even when the service left it out (the value is then
 *   ""), so for a given strategy row N always holds the same metric: `=B12` or `INDEX(card, 12, 2)`
 *   keeps meaning the same thing after a refresh. Only the ⚠ rows vary, and they come last.
 * - Mode and a count of warnings come first, so a simulated answer or a skipped AI step is seen
 *   without scrolling to the end of a 40-row spill.
 * - Only the strategy's own fields: an arbitrage card has no cap rate row, a co-host card no rent.
 */

export const CARD_LABELS = {
  mode: "Mode",
  warnings: "Warnings",
  noAnalysis: "Analysis",
  fetched: "Fetched",
  cached: "Cached",
  warning: `${WARNING_MARK} Warning`,
} as const;

export const MODE_TEXT = { sandbox: "Sandbox (simulated data)", live: "Live" } as const;

export interface CardOptions {
  /** The strategy the caller asked for (STR.BUY → "buy"); otherwise read from the answer. */
  strategy?: Strategy;
  /** Minutes east of UTC for the Fetched date; default the local zone. */
  utcOffsetMinutes?: number;
}

export function analysisCard(answer: SessionAnswer, options: CardOptions = {}): Grid {
  const analysis = analysisOf(answer);
  const warnings = warningTexts(answer);
  const rows: Grid = [
    [text(CARD_LABELS.mode), text(answer.relay.sandbox ? MODE_TEXT.sandbox : MODE_TEXT.live)],
    [text(CARD_LABELS.warnings), text(warningSummary(warnings.length))],
  ];
  if (analysis) {
    for (const field of cardFields(strategyOf(answer, options.strategy), analysis))
      rows.push([text(field.label), fieldCell(analysis, field)]);
  } else {
    // enhance whose requested AI functions all failed: the service sends warnings only.
    rows.push([
      text(CARD_LABELS.noAnalysis),
      text("None in this answer: the stored analysis is unchanged (see the warnings)."),
    ]);
  }
  rows.push(fetchedRow(answer.relay.fetchedAt, options.utcOffsetMinutes), cachedRow(answer));
  for (const warning of warnings) rows.push([text(CARD_LABELS.warning), text(warning)]);
  return rows;
}

/**
 * The fields a card shows, in catalogue order: the strategy's; or, when the strategy cannot be told,
 * the fields every strategy has plus any other that holds a value.
 */
export function cardFields(strategy: Strategy | undefined, analysis: Analysis | undefined): FieldInfo[] {
  if (strategy) return fieldsOf(strategy).filter((f) => !f.offCard);
  return FIELD_CATALOGUE.filter(
    (f) => !f.offCard && (f.strategies.length === STRATEGIES.length || readField(analysis, f) !== ""),
  );
}

function warningSummary(count: number): string {
  if (count === 0) return "None";
  return count === 1
    ? `1: see the ${WARNING_MARK} row at the end`
    : `${count}: see the ${WARNING_MARK} rows at the end`;
}

function fetchedRow(fetchedAt: string, utcOffsetMinutes: number | undefined): CellRow {
  const serial = excelDateTime(fetchedAt, utcOffsetMinutes);
  return [text(CARD_LABELS.fetched), serial === undefined ? text(fetchedAt) : cell(serial, DATE_TIME_FORMAT)];
}

/** Nothing was fetched for an answer the relay had cached, or that the add-in's session gave itself. */
function cachedRow(answer: SessionAnswer): CellRow {
  const value =
    answer.relay.cached || answer.session !== undefined
      ? "Yes: from the relay's cache, not billed again"
      : `No: fetched now, cost $${answer.relay.costUSD.toFixed(2)}`;
  return [text(CARD_LABELS.cached), text(value)];
}
