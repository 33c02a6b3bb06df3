import { Analysis, FieldInfo, PercentileKey, findField } from "../contract";
import { BLANK, CellRow, Grid, text } from "./cells";
import { fieldCell } from "./field-values";

/*
 * The blocks of the card (card.ts): the decision rows an investor reads first, and the percentiles
 * of revenue, nightly rate and occupancy as one small table, p25/p50/p75 being the bear, base and
 * bull cases. Each figure comes from the catalogue's field, so a card row and a `fields` column of
 * the same name always hold the same value.
 */

/** Columns of the card: the label, then as many as the percentile table needs. */
export const CARD_WIDTH = 1 + 5;

/** The decision, in the order it is read: what is bought and how it is paid, then what it earns. */
const DECISION_PATHS = [
  "fullAddress",
  "purchasePriceUSD",
  "loanAmountUSD",
  "monthlyMortgagePaymentUSD",
  "monthlyRentUSD",
  "yearOneRevenueUSD",
  "yearOneCashFlowUSD",
  "yearOneCashOnCashPercentage",
  "yearOneCapRatePercentage",
  "dscr",
  "breakEvenOccupancy",
  "yearOneCohostCommissionUSD",
  "yearOneCohostReturnUSD",
] as const;

const PERCENTILE_COLUMNS: readonly [PercentileKey, string][] = [
  // Short enough for a default-width column.
  ["p25", "p25 bear"],
  ["p50", "p50 base"],
  ["p75", "p75 bull"],
  ["p90", "p90"],
  ["avg", "Average"],
];

const PERCENTILE_METRICS: readonly [string, string][] = [
  ["revenue", "Annual revenue"],
  ["adr", "Nightly rate"],
  ["occupancy", "Occupancy"],
];

/** The label above the percentile columns. */
export const PERCENTILES_LABEL = "Percentiles";

function catalogued(path: string): FieldInfo {
  const field = findField(path);
  if (!field) throw new Error(`${path} is not in the field catalogue`);
  return field;
}

const DECISION_FIELDS = DECISION_PATHS.map(catalogued);
const PERCENTILE_FIELDS = PERCENTILE_METRICS.map(([metric]) =>
  PERCENTILE_COLUMNS.map(([key]) => catalogued(`${metric}.${key}`)),
);
const IN_BLOCKS = new Set([...DECISION_FIELDS, ...PERCENTILE_FIELDS.flat()].map((f) => f.path));

/** A row of the card: cells, padded with blanks to the card's width. */
export function cardRow(...cells: CellRow): CellRow {
  return [...cells, ...Array.from({ length: CARD_WIDTH - cells.length }, () => BLANK)];
}

/** The decision rows among `fields` (the card's fields for its strategy), in decision order. */
export function decisionRows(analysis: Analysis, fields: readonly FieldInfo[]): Grid {
  const shown = new Set(fields.map((f) => f.path));
  return DECISION_FIELDS.filter((f) => shown.has(f.path)).map((f) => cardRow(text(f.label), fieldCell(analysis, f)));
}

/** The percentiles: a header row, then revenue, nightly rate and occupancy across p25 … average. */
export function percentileRows(analysis: Analysis): Grid {
  return [
    cardRow(text(PERCENTILES_LABEL), ...PERCENTILE_COLUMNS.map(([, label]) => text(label))),
    ...PERCENTILE_METRICS.map(([, label], k) =>
      cardRow(text(label), ...(PERCENTILE_FIELDS[k] ?? []).map((f) => fieldCell(analysis, f))),
    ),
  ];
}

/** The fields of `fields` that neither block shows, in catalogue order. */
export function restRows(analysis: Analysis, fields: readonly FieldInfo[]): Grid {
  return fields.filter((f) => !IN_BLOCKS.has(f.path)).map((f) => cardRow(text(f.label), fieldCell(analysis, f)));
}
