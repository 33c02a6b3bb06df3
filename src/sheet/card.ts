import { Analysis, FIELD_CATALOGUE, FieldInfo, STRATEGIES, SessionAnswer, Strategy, fieldsOf } from "../contract";
import { CellRow, Grid, cell, text } from "./cells";
import { analysisOf, strategyOf, warningTexts } from "./answer";
import { cardRow, decisionRows, percentileRows, restRows } from "./card-blocks";
import { CARD_DATE_FORMAT, CARD_TIME_FORMAT, excelDateTime } from "./excel-date";
import { readField } from "./field-values";
import { WARNING_MARK } from "./warnings";

/*
 * The card: what `=STR.BUY(…)` spills when no `fields` are given. Six columns, a label then values:
 *
 *   Mode            Sandbox (simulated data) | Live          (a what-if: "What-if", and what it changed)
 *   <the decision: address, purchase price, loan amount, monthly mortgage payment, year-one revenue,
 *    cash flow, cash-on-cash, cap rate, DSCR, break-even occupancy — those of the strategy>
 *   Warnings (⚠ rows at the end)   2     (a count: the words are in the label column, which a reader widens)
 *
 *   Percentiles     p25 bear  p50 base  p75 bull  p90  Average
 *   Annual revenue  …
 *   Nightly rate    …
 *   Occupancy       …
 *
 *   <every other field of the strategy, in catalogue order>
 *   Fetched         6/1/25      14:03      (one Excel date, shown in two cells that fit default widths)
 *   Cached          Yes: … | No: …
 *   ⚠ Warning       one row per warning
 *
 * Why this shape:
 * - The decision comes first, under the mode, so a simulated figure is never read without its mark.
 * - Every field of the strategy has its row even when the service left it out (the value is then
 *   ""), so for a given strategy row N always holds the same metric: `=B12` or `INDEX(card, 12, 2)`
 *   keeps meaning the same thing after a refresh. Only the ⚠ rows vary, and they come last.
 * - Values are numbers under formats a default-width column shows (no `yyyy-mm-dd hh:mm` that
 *   reads `#######`); long text only where nothing to its right matters.
 * - Only the strategy's own fields: an arbitrage card has no cap rate row, a co-host card no rent.
 */

export const CARD_LABELS = {
  mode: "Mode",
  whatIf: "What-if",
  warnings: `Warnings (${WARNING_MARK} rows at the end)`,
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
  /** A what-if card: the inputs it changed, in words ("interest rate 7.5%"); none is the analysis's own. */
  whatIf?: readonly string[];
}

export function analysisCard(answer: SessionAnswer, options: CardOptions = {}): Grid {
  const analysis = analysisOf(answer);
  const warnings = warningTexts(answer);
  const rows: Grid = [modeRow(answer, options.whatIf)];
  if (analysis) {
    const fields = cardFields(strategyOf(answer, options.strategy), analysis);
    rows.push(...decisionRows(analysis, fields), warningsRow(warnings.length), cardRow());
    rows.push(...percentileRows(analysis), cardRow(), ...restRows(analysis, fields));
  } else {
    // enhance whose requested AI functions all failed: the service sends warnings only.
    rows.push(
      cardRow(
        text(CARD_LABELS.noAnalysis),
        text("None in this answer: the stored analysis is unchanged (see the warnings)."),
      ),
      warningsRow(warnings.length),
    );
  }
  rows.push(fetchedRow(answer.relay.fetchedAt, options.utcOffsetMinutes), cachedRow(answer));
  for (const warning of warnings) rows.push(cardRow(text(CARD_LABELS.warning), text(warning)));
  return rows;
}

/**
 * The fields a card shows: the strategy's; or, when the strategy cannot be told, the fields every
 * strategy has plus any other that holds a value.
 */
export function cardFields(strategy: Strategy | undefined, analysis: Analysis | undefined): FieldInfo[] {
  if (strategy) return fieldsOf(strategy).filter((f) => !f.offCard);
  return FIELD_CATALOGUE.filter(
    (f) => !f.offCard && (f.strategies.length === STRATEGIES.length || readField(analysis, f) !== ""),
  );
}

/** The first row: live or simulated; for a what-if, that it is one and what it changed. */
function modeRow(answer: SessionAnswer, whatIf: readonly string[] | undefined): CellRow {
  const mode = text(answer.relay.sandbox ? MODE_TEXT.sandbox : MODE_TEXT.live);
  if (whatIf === undefined) return cardRow(text(CARD_LABELS.mode), mode);
  const changed = whatIf.length === 0 ? "nothing: the analysis's own inputs" : whatIf.join("; ");
  return cardRow(text(CARD_LABELS.whatIf), mode, text(`Changed: ${changed}`));
}

/** A number, not a sentence, in the value column: text there is cut at a default column's width. */
function warningsRow(count: number): CellRow {
  return cardRow(text(CARD_LABELS.warnings), cell(count, "0"));
}

function fetchedRow(fetchedAt: string, utcOffsetMinutes: number | undefined): CellRow {
  const serial = excelDateTime(fetchedAt, utcOffsetMinutes);
  if (serial === undefined) return cardRow(text(CARD_LABELS.fetched), text(fetchedAt));
  return cardRow(text(CARD_LABELS.fetched), cell(serial, CARD_DATE_FORMAT), cell(serial, CARD_TIME_FORMAT));
}

/** Nothing was fetched for an answer the relay had cached, or that the add-in's session gave itself. */
function cachedRow(answer: SessionAnswer): CellRow {
  const value =
    answer.session === "computed"
      ? "No: computed in Excel from the stored analysis, not billed"
      : answer.relay.cached || answer.session !== undefined
        ? "Yes: from the relay's cache, not billed again"
        : `No: fetched now, cost $${answer.relay.costUSD.toFixed(2)}`;
  return cardRow(text(CARD_LABELS.cached), text(value));
}
