import { NO_MONTHLY_FIGURES, UNIT_FORMATS, Unit } from "../contract";
import { ProjectionMonth, ProjectionSummary, ProjectionYear } from "../model";
import { BLANK, CellRow, FormattedCell, Grid, cell, text } from "./cells";
import { SANDBOX_NOTICE } from "./answer";
import { cellValue, unitFormat } from "./field-values";

/*
 * STR.PROJECTION's spill: the summary first, two columns of label and value, so that each of its
 * rows keeps its place whatever the hold (`=INDEX(P, 19, 2)` is the IRR for 5 years or 30); then a
 * blank row; then the year-by-year table, apart, under a title of its own and its header. Rates
 * are fractions under a % format, as everywhere in the add-in. A simulated analysis's projection
 * says so beside both titles, so neither block passes for a real one when read or copied alone.
 */

const SUMMARY_ROWS: readonly [keyof ProjectionSummary, string, Unit][] = [
  ["purchasePriceUSD", "Purchase price", "usd"],
  ["downPaymentPercentage", "Down payment", "percent"],
  ["interestRatePercentage", "Interest rate", "percent"],
  ["mortgageLength", "Mortgage length", "years"],
  ["appreciationPercentage", "Appreciation a year", "percent"],
  ["revenueGrowthPercentage", "Revenue growth a year", "percent"],
  ["expenseGrowthPercentage", "Expense growth a year", "percent"],
  ["sellingCostPercentage", "Selling costs, % of sale price", "percent"],
  ["cashInvestedUSD", "Cash invested", "usd"],
  ["salePriceUSD", "Sale price", "usd"],
  ["sellingCostsUSD", "Selling costs", "usd"],
  ["loanPayoffUSD", "Loan paid off at sale", "usd"],
  ["saleProceedsUSD", "Proceeds at sale", "usd"],
  ["totalCashFlowUSD", "Total cash flow", "usd"],
  ["totalProfitUSD", "Total profit", "usd"],
  ["equityMultiple", "Equity multiple", "ratio"],
  ["averageCashOnCashPercentage", "Average cash-on-cash", "percent"],
  ["irrPercentage", "IRR", "percent"],
];

const YEAR_COLUMNS: readonly [keyof ProjectionYear, string][] = [
  ["year", "Year"],
  ["revenueUSD", "Revenue"],
  ["operatingExpensesUSD", "Operating expenses"],
  ["netOperatingIncomeUSD", "Net operating income"],
  ["debtServiceUSD", "Debt service (mortgage & taxes)"],
  ["cashFlowUSD", "Cash flow"],
  ["loanBalanceUSD", "Loan balance"],
  ["propertyValueUSD", "Property value"],
  ["equityUSD", "Equity"],
];

/** The labels of the summary rows, in order (row 1 is the title). */
export const PROJECTION_SUMMARY_LABELS = SUMMARY_ROWS.map(([, label]) => label);
export const PROJECTION_COLUMN_LABELS = YEAR_COLUMNS.map(([, label]) => label);

/** IRR's cell when the flows have none: text, so a formula reading it fails rather than reads 0. */
export const NO_IRR_TEXT = "None: the cash flows never repay the cash invested";

/** The title of the year-by-year table. */
export const PROJECTION_YEARS_TITLE = "Year by year";
/** The title of year one's months, under the years. */
export const PROJECTION_MONTHS_TITLE = "Year one by month";

const MONTH_COLUMNS: readonly [keyof ProjectionMonth, string][] = [
  ["month", "Month"],
  ["revenueUSD", "Revenue"],
  ["operatingExpensesUSD", "Operating expenses"],
  ["debtServiceUSD", "Debt service (mortgage & taxes)"],
  ["cashFlowUSD", "Cash flow"],
];

export function projectionGrid(
  years: readonly ProjectionYear[],
  summary: ProjectionSummary,
  options: { sandbox?: boolean; months?: readonly ProjectionMonth[] | undefined } = {},
): Grid {
  const mark = options.sandbox === true ? [text(SANDBOX_NOTICE)] : [];
  const width = YEAR_COLUMNS.length;
  const pad = (cells: FormattedCell[]): CellRow => [
    ...cells,
    ...Array.from({ length: width - cells.length }, () => BLANK),
  ];
  const rows: Grid = [
    pad([
      text(
        `Projection: ${years.length} ${years.length === 1 ? "year" : "years"}, sold at the end of year ${years.length}`,
      ),
      ...mark,
    ]),
  ];
  for (const [key, label, unit] of SUMMARY_ROWS) {
    const value = summary[key];
    rows.push(
      pad([
        text(label),
        value === undefined ? text(NO_IRR_TEXT) : cell(cellValue(value, unit), unitFormat(unit, undefined, value)),
      ]),
    );
  }
  rows.push(pad([]));
  rows.push(pad([text(PROJECTION_YEARS_TITLE), ...mark]));
  rows.push(YEAR_COLUMNS.map(([, label]) => text(label)));
  for (const year of years)
    rows.push(YEAR_COLUMNS.map(([key]) => (key === "year" ? cell(year.year, "0") : cell(year[key], UNIT_FORMATS.usd))));
  // Year one's cash flow month by month (the service's seasonality), or why there is none.
  rows.push(pad([]));
  rows.push(pad([text(PROJECTION_MONTHS_TITLE), ...mark]));
  if (!options.months) return [...rows, pad([text(NO_MONTHLY_FIGURES)])];
  rows.push(pad(MONTH_COLUMNS.map(([, label]) => text(label))));
  for (const m of options.months)
    rows.push(pad(MONTH_COLUMNS.map(([key]) => (key === "month" ? text(m.month) : cell(m[key], UNIT_FORMATS.usd)))));
  return rows;
}
