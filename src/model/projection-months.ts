import type { Analysis, MonthlyFigures } from "../contract/analysis";
import { MONTH_NAMES } from "../contract/monthly";
import { round } from "../contract/numbers";
import type { ProjectionYear } from "./projection";

/*
 * Year one of a hold, month by month: the revenue follows the service's twelve months (its
 * seasonality, `monthly`), scaled to year one's revenue so the months add up to the year the
 * projection states; operating expenses and the mortgage and taxes are paid in twelve equal parts.
 * Without monthly figures from the service there is no month-by-month year: none is invented.
 */

export interface ProjectionMonth {
  month: string;
  revenueUSD: number;
  operatingExpensesUSD: number;
  debtServiceUSD: number;
  cashFlowUSD: number;
}

/** Year one's months, or undefined when the analysis has no twelve months of revenue. */
export function yearOneByMonth(a: Analysis, yearOne: ProjectionYear): ProjectionMonth[] | undefined {
  const monthly = (a as { monthly?: MonthlyFigures[] }).monthly;
  const revenues = monthly?.map((m) => m.revenueUSD);
  if (!monthly || monthly.length !== 12 || !revenues?.every((r) => typeof r === "number" && r >= 0)) return undefined;
  const total = (revenues as number[]).reduce((s, r) => s + r, 0);
  if (total <= 0) return undefined;
  const expenses = yearOne.operatingExpensesUSD / 12;
  const debt = yearOne.debtServiceUSD / 12;
  return monthly.map((m) => {
    const revenue = (yearOne.revenueUSD * (m.revenueUSD as number)) / total;
    return {
      month: MONTH_NAMES.find((name) => m.month.startsWith(name)) ?? m.month,
      revenueUSD: usd(revenue),
      operatingExpensesUSD: usd(expenses),
      debtServiceUSD: usd(debt),
      cashFlowUSD: usd(revenue - expenses - debt),
    };
  });
}

function usd(value: number): number {
  return round(value, 2);
}
