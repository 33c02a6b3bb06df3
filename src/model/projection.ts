import { Analysis } from "../contract/analysis";
import { MortgageStrategyInputs, loanBalance, monthlyMortgagePayment } from "./finance";
import { irr } from "./irr";
import { ProjectionMonth, yearOneByMonth } from "./projection-months";
import { round } from "../contract/numbers";
import { WhatIfInputs, mortgageInputs, whatIf, whatIfKind } from "./whatif";

/*
 * A hold-period projection (STR.PROJECTION): the analysis's first year, then each following year
 * grown at fixed rates, and a sale at the end of the last. Year one is the analysis's own figures,
 * or STR.WHATIF's when the price or financing is changed; the later years use the same inputs
 * (whatif.ts's mortgageInputs) and the same annuity mortgage (finance.ts). docs/functions.md lists
 * every assumption:
 * - revenue and operating expenses grow at their own yearly rates from year one's;
 * - property tax stays its rate of the property's value at the start of each year, and is counted
 *   with the mortgage in debt service, as the service's "mortgage & taxes" (and DSCR) count it;
 * - the property's value grows at the appreciation rate from the purchase price;
 * - the loan is paid as the annuity it is: nothing more once it is repaid;
 * - the cash put in (down payment, closing costs, furnishing) is spent at the start; at the sale the
 *   selling costs and the loan still owed are paid from the sale price; furnishing is not resold.
 */

export const PROJECTION_DEFAULTS = {
  /** Yearly revenue growth: about the long-run US inflation rate, like the service's 3 % appreciation. */
  revenueGrowthPercentage: 3,
  /** Yearly operating expense growth: the same, so that margins hold unless told otherwise. */
  expenseGrowthPercentage: 3,
  /** Selling costs (agents' commissions, transfer taxes, closing) as a percent of the sale price. */
  sellingCostPercentage: 6,
} as const;

export const PROJECTION_YEARS = { min: 1, max: 30 } as const;

export interface ProjectionInputs extends Pick<
  WhatIfInputs,
  "purchasePriceUSD" | "downPaymentPercentage" | "interestRatePercentage" | "mortgageLength"
> {
  /** The hold, in whole years: the property is sold at the end of the last. */
  years: number;
  /** Yearly, percent; omitted: the analysis's own (the service's 3 %). */
  appreciationPercentage?: number | undefined;
  revenueGrowthPercentage?: number | undefined;
  expenseGrowthPercentage?: number | undefined;
  sellingCostPercentage?: number | undefined;
}

/** One year of the hold; money in USD to the cent, balances and values at the year's end. */
export interface ProjectionYear {
  year: number;
  revenueUSD: number;
  operatingExpensesUSD: number;
  netOperatingIncomeUSD: number;
  /** Mortgage payments and property tax (the service's "mortgage & taxes"). */
  debtServiceUSD: number;
  cashFlowUSD: number;
  loanBalanceUSD: number;
  propertyValueUSD: number;
  equityUSD: number;
}

/** The assumptions used (given or defaulted), then the hold's results. Percents as 8.5 for 8.5 %. */
export interface ProjectionSummary {
  purchasePriceUSD: number;
  downPaymentPercentage: number;
  interestRatePercentage: number;
  mortgageLength: number;
  appreciationPercentage: number;
  revenueGrowthPercentage: number;
  expenseGrowthPercentage: number;
  sellingCostPercentage: number;
  cashInvestedUSD: number;
  salePriceUSD: number;
  sellingCostsUSD: number;
  loanPayoffUSD: number;
  /** Sale price − selling costs − the loan still owed. */
  saleProceedsUSD: number;
  totalCashFlowUSD: number;
  /** Cash flows + proceeds − cash invested. */
  totalProfitUSD: number;
  /** (Cash flows + proceeds) ÷ cash invested. */
  equityMultiple: number;
  averageCashOnCashPercentage: number;
  /** Undefined when the flows have no IRR (the sale never repays what was put in). */
  irrPercentage: number | undefined;
}

export type ProjectionResult =
  | {
      ok: true;
      years: ProjectionYear[];
      /** Year one month by month, from the service's twelve months; undefined when it gave none. */
      months: ProjectionMonth[] | undefined;
      summary: ProjectionSummary;
      /** −cash invested, then each year's cash flow, the last with the proceeds. */ flows: number[];
    }
  | { ok: false; message: string };

export function projectHold(a: Analysis, p: ProjectionInputs): ProjectionResult {
  if (whatIfKind(a) !== "mortgage")
    return {
      ok: false,
      message: "the analysis is not a purchase (buy or owned): there is no property value or loan to project",
    };
  if (!Number.isInteger(p.years) || p.years < PROJECTION_YEARS.min || p.years > PROJECTION_YEARS.max)
    return {
      ok: false,
      message: `years must be a whole number from ${PROJECTION_YEARS.min} to ${PROJECTION_YEARS.max}; got ${p.years}`,
    };
  const model = mortgageInputs(a, p);
  if (!model.ok) return model;
  // Year one is the analysis's own figures, or WHATIF's when the price or financing changes.
  const changed = [p.purchasePriceUSD, p.downPaymentPercentage, p.interestRatePercentage, p.mortgageLength].some(
    (v) => v !== undefined,
  );
  const recomputed = changed ? whatIf(a, p) : undefined;
  if (recomputed && !recomputed.ok) return recomputed;
  const first = recomputed?.ok ? recomputed.analysis : a;
  const m = model.inputs;
  const rates = {
    appreciation: p.appreciationPercentage ?? m.appreciationPercentage,
    revenueGrowth: p.revenueGrowthPercentage ?? PROJECTION_DEFAULTS.revenueGrowthPercentage,
    expenseGrowth: p.expenseGrowthPercentage ?? PROJECTION_DEFAULTS.expenseGrowthPercentage,
    sellingCost: p.sellingCostPercentage ?? PROJECTION_DEFAULTS.sellingCostPercentage,
  };
  const years = yearsOf(m, rates, p.years, first);
  const last = years[years.length - 1] as ProjectionYear;
  const cashInvested = num(first.totalCashInvestment) ?? 0;
  const sellingCosts = usd((last.propertyValueUSD * rates.sellingCost) / 100);
  const proceeds = usd(last.propertyValueUSD - sellingCosts - last.loanBalanceUSD);
  const totalCashFlow = usd(years.reduce((s, y) => s + y.cashFlowUSD, 0));
  const flows = [-cashInvested, ...years.map((y) => y.cashFlowUSD)];
  flows[flows.length - 1] = usd((flows[flows.length - 1] as number) + proceeds);
  const rate = irr(flows);
  return {
    ok: true,
    years,
    months: yearOneByMonth(first, years[0] as ProjectionYear),
    flows,
    summary: {
      purchasePriceUSD: m.purchasePriceUSD,
      downPaymentPercentage: m.downPaymentPercentage,
      interestRatePercentage: m.interestRatePercentage,
      mortgageLength: m.mortgageLength,
      appreciationPercentage: rates.appreciation,
      revenueGrowthPercentage: rates.revenueGrowth,
      expenseGrowthPercentage: rates.expenseGrowth,
      sellingCostPercentage: rates.sellingCost,
      cashInvestedUSD: cashInvested,
      salePriceUSD: last.propertyValueUSD,
      sellingCostsUSD: sellingCosts,
      loanPayoffUSD: last.loanBalanceUSD,
      saleProceedsUSD: proceeds,
      totalCashFlowUSD: totalCashFlow,
      totalProfitUSD: usd(totalCashFlow + proceeds - cashInvested),
      equityMultiple: cashInvested > 0 ? (totalCashFlow + proceeds) / cashInvested : 0,
      averageCashOnCashPercentage: cashInvested > 0 ? (totalCashFlow / p.years / cashInvested) * 100 : 0,
      irrPercentage: rate === undefined ? undefined : rate * 100,
    },
  };
}

type Rates = { appreciation: number; revenueGrowth: number; expenseGrowth: number };

function yearsOf(m: MortgageStrategyInputs, rates: Rates, count: number, first: Analysis): ProjectionYear[] {
  const loan = m.purchasePriceUSD * (1 - m.downPaymentPercentage / 100);
  const payment = monthlyMortgagePayment(loan, m.interestRatePercentage, m.mortgageLength);
  const monthsPaid = Math.round((m.mortgageLength - m.yearsRemainingOnMortgage) * 12);
  const monthsLeft = Math.round(m.yearsRemainingOnMortgage * 12);
  const taxes = (m.purchasePriceUSD * m.propertyTaxPercentage) / 100;
  const grown = (percentage: number, years: number) => (1 + percentage / 100) ** years;
  const years: ProjectionYear[] = [];
  for (let year = 1; year <= count; year++) {
    const revenue = m.yearOneRevenueUSD * grown(rates.revenueGrowth, year - 1);
    const income = revenue - m.annualOperatingExpensesUSD * grown(rates.expenseGrowth, year - 1);
    const months = Math.min(12, Math.max(0, monthsLeft - 12 * (year - 1)));
    const debt = payment * months + taxes * grown(rates.appreciation, year - 1);
    const balance = usd(loanBalance(loan, m.interestRatePercentage, m.mortgageLength, monthsPaid + 12 * year));
    const value = usd(m.purchasePriceUSD * grown(rates.appreciation, year));
    // Year one as the analysis (or WHATIF) states it, to the cent.
    const row =
      year === 1
        ? yearOne(first)
        : {
            revenueUSD: usd(revenue),
            netOperatingIncomeUSD: usd(income),
            debtServiceUSD: usd(debt),
            cashFlowUSD: usd(income - debt),
          };
    years.push({
      year,
      revenueUSD: row.revenueUSD,
      operatingExpensesUSD: usd(row.revenueUSD - row.netOperatingIncomeUSD),
      netOperatingIncomeUSD: row.netOperatingIncomeUSD,
      debtServiceUSD: row.debtServiceUSD,
      cashFlowUSD: row.cashFlowUSD,
      loanBalanceUSD: balance,
      propertyValueUSD: value,
      equityUSD: usd(value - balance),
    });
  }
  return years;
}

function yearOne(
  a: Analysis,
): Pick<ProjectionYear, "revenueUSD" | "netOperatingIncomeUSD" | "debtServiceUSD" | "cashFlowUSD"> {
  return {
    revenueUSD: num(a.yearOneRevenueUSD) ?? 0,
    netOperatingIncomeUSD: num(a.yearOneOperatingIncomeUSD) ?? 0,
    debtServiceUSD: num(a.yearOneMorgageAndTaxesUSD) ?? 0,
    cashFlowUSD: num(a.yearOneCashFlowUSD) ?? 0,
  };
}

function num(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

function usd(value: number): number {
  return round(value, 2);
}
