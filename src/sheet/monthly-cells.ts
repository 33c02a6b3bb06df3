import { Analysis, MonthlyFigures, NO_MONTHLY_FIGURES, moneyFormat } from "../contract";
import { BLANK, CellRow, FormattedCell, Grid, text } from "./cells";
import { WARNINGS_HEADER } from "./fields";
import { unitFormat } from "./field-values";
import { warningsCell } from "./warnings";

/*
 * The twelve months (STR.MONTHLY, str-screen's STR Monthly sheet): a header, then a row a month in
 * calendar order with the nightly rate, occupancy (a fraction under a % format) and revenue, and the
 * answer's warnings in the last column of every row, as the comparables table has them, so a month
 * copied out of a sandbox analysis still says it is simulated. When the service gave no months, one
 * row says so: nothing is made up from the year's figures.
 */

export const MONTHLY_COLUMNS = [
  { key: "month", label: "Month" },
  { key: "ratePerNightUSD", label: "Nightly rate" },
  { key: "occupancy", label: "Occupancy" },
  { key: "revenueUSD", label: "Revenue" },
] as const satisfies readonly { key: keyof MonthlyFigures; label: string }[];

export function monthlyTable(analysis: Analysis | undefined, warnings: readonly string[] = []): Grid {
  const header: CellRow = [...MONTHLY_COLUMNS.map((c) => text(c.label)), text(WARNINGS_HEADER)];
  const notes = text(warningsCell(warnings));
  const months = analysis?.monthly ?? [];
  if (months.length === 0) return [header, [text(NO_MONTHLY_FIGURES), BLANK, BLANK, BLANK, notes]];
  const money = moneyFormat(analysis?.currency);
  const figure = (value: number | undefined, format: string): FormattedCell =>
    value === undefined ? BLANK : { value, format };
  return [
    header,
    ...months.map((m): CellRow => [
      text(m.month),
      figure(m.ratePerNightUSD, money),
      figure(m.occupancy, unitFormat("fraction", undefined)),
      figure(m.revenueUSD, money),
      notes,
    ]),
  ];
}
