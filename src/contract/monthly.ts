import { LooseNumber, MonthlyFigures } from "./analysis";
import { round } from "./numbers";

/*
 * The seasonality profile: the live service's `revenueData`, one entry a month keyed by a month whose
 * form is not shown (observed-behaviour.md), as twelve rows in calendar order with occupancy as a
 * fraction. Keys may be "2026-01", "January", "Jan" or "1"; values an object of the month's figures
 * or, in some answers, the month's revenue alone.
 */

export const MONTH_NAMES = [
  "Jan",
  "Feb",
  "Mar",
  "Apr",
  "May",
  "Jun",
  "Jul",
  "Aug",
  "Sep",
  "Oct",
  "Nov",
  "Dec",
] as const;

/** What "the service gave no monthly figures" is said as, wherever months are shown. */
export const NO_MONTHLY_FIGURES = "The service gave no monthly figures for this analysis";

/** A month key as a sortable position (year × 12 + month) and a label; undefined when it names no month. */
export function monthOf(key: string): { order: number; label: string } | undefined {
  const k = key.trim();
  const dated = /^(\d{4})[-/.](\d{1,2})(?:[-/.]\d{1,2})?$/.exec(k);
  if (dated) {
    const month = Number(dated[2]);
    if (month < 1 || month > 12) return undefined;
    return { order: Number(dated[1]) * 12 + month - 1, label: `${dated[1]}-${String(month).padStart(2, "0")}` };
  }
  if (/^\d{1,2}$/.test(k)) {
    const month = Number(k);
    return month >= 1 && month <= 12 ? { order: month - 1, label: MONTH_NAMES[month - 1] as string } : undefined;
  }
  const named = MONTH_NAMES.findIndex((m) => k.slice(0, 3).toLowerCase() === m.toLowerCase());
  const full = /^[a-z]+$/i.test(k) && k.length >= 3;
  return named >= 0 && full ? { order: named, label: MONTH_NAMES[named] as string } : undefined;
}

const number = (v: unknown): number | undefined => LooseNumber.parse(v);

/** A month's occupancy, sent as a percent (or, drifted, a fraction), as a fraction; undefined when it is neither. */
function occupancyFraction(v: number | undefined): number | undefined {
  if (v === undefined || v < 0 || v > 100) return undefined;
  return round(v <= 1 ? v : v / 100, 6);
}

/** The months of `revenueData` in calendar order, and notes on what could not be read; undefined when there is none. */
export function monthlyOf(revenueData: unknown): { monthly: MonthlyFigures[]; notes: string[] } | undefined {
  if (typeof revenueData !== "object" || revenueData === null || Array.isArray(revenueData)) return undefined;
  const notes: string[] = [];
  const months: { order: number; row: MonthlyFigures }[] = [];
  let fractions = 0;
  let dropped = 0;
  for (const [key, value] of Object.entries(revenueData as Record<string, unknown>)) {
    const month = monthOf(key);
    if (!month) {
      notes.push(`monthly figures: "${key}" names no month; left out`);
      continue;
    }
    const row: MonthlyFigures = { month: month.label };
    if (typeof value === "object" && value !== null) {
      const v = value as Record<string, unknown>;
      const adr = number(v.average_daily_rate ?? v.adr);
      const occupancyRaw = number(v.average_occupancy_rate ?? v.occupancy_rate ?? v.occupancy);
      const revenue = number(v.average_revenue ?? v.revenue);
      const occupancy = occupancyFraction(occupancyRaw);
      if (occupancyRaw !== undefined && occupancyRaw > 0 && occupancyRaw <= 1) fractions++;
      if (occupancyRaw !== undefined && occupancy === undefined) dropped++;
      if (adr !== undefined) row.ratePerNightUSD = adr;
      if (occupancy !== undefined) row.occupancy = occupancy;
      if (revenue !== undefined) row.revenueUSD = revenue;
    } else {
      const revenue = number(value);
      if (revenue !== undefined) row.revenueUSD = revenue;
    }
    months.push({ order: month.order, row });
  }
  if (months.length === 0 && notes.length === 0) return undefined;
  if (fractions > 0) notes.push(`monthly occupancy given as fractions in ${fractions} months; read as such`);
  if (dropped > 0) notes.push(`monthly occupancy outside 0–100 % in ${dropped} months; left blank`);
  if (months.length !== 12) notes.push(`the service gave ${months.length} months of figures, not 12`);
  months.sort((a, b) => a.order - b.order);
  return { monthly: months.map((m) => m.row), notes };
}
