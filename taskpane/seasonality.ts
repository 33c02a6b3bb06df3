import { Analysis, MONTH_NAMES, NO_MONTHLY_FIGURES } from "../src/contract";

/*
 * The twelve months as the pane draws them (the Start tab's analysis and the Comparables tab): the
 * normalised answer's `monthly` rows, in calendar order, with the month's short name, its revenue
 * (the bars), nightly rate and occupancy (the table beside them), and the high and low months the
 * chart's caption names. Nothing is made up: an analysis without months is said to have none.
 */

export interface SeasonMonth {
  /** "Jan" … "Dec" (a dated key "2026-01" is shown by its month). */
  label: string;
  revenueUSD: number | undefined;
  ratePerNightUSD: number | undefined;
  /** A fraction (0.55 is 55 %). */
  occupancy: number | undefined;
}

export type Seasonality =
  | { kind: "months"; months: SeasonMonth[]; high: SeasonMonth | undefined; low: SeasonMonth | undefined }
  | { kind: "none"; message: string };

export function seasonalityOf(analysis: Pick<Analysis, "monthly"> | undefined): Seasonality {
  const rows = analysis?.monthly ?? [];
  if (rows.length === 0) return { kind: "none", message: `${NO_MONTHLY_FIGURES}.` };
  const months = rows.map((m): SeasonMonth => ({
    label: monthLabel(m.month),
    revenueUSD: m.revenueUSD,
    ratePerNightUSD: m.ratePerNightUSD,
    occupancy: m.occupancy,
  }));
  const withRevenue = months.filter((m) => m.revenueUSD !== undefined);
  const by = (pick: (a: number, b: number) => boolean) =>
    withRevenue.reduce<SeasonMonth | undefined>(
      (best, m) => (best === undefined || pick(m.revenueUSD as number, best.revenueUSD as number) ? m : best),
      undefined,
    );
  return { kind: "months", months, high: by((a, b) => a > b), low: by((a, b) => a < b) };
}

/** "2026-01" → "Jan"; a name the contract already made short stays as it is. */
function monthLabel(month: string): string {
  const dated = /^\d{4}-(\d{2})$/.exec(month);
  return dated ? (MONTH_NAMES[Number(dated[1]) - 1] ?? month) : month;
}
