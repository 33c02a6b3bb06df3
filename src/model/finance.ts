import { ARB_FIELDS, COHOST_FIELDS, MORTGAGE_STRATEGY_FIELDS } from "../contract/analysis";
import { round } from "../contract/numbers";

/*
 * The service's financial model, as recomputed from its public report pages
 * (docs/service/observed-behaviour.md, "The financial model"). The sandbox computes its answers with it and
 * STR.WHATIF recomputes financing locally with it, so both agree with each other by construction
 * and with the live service as far as the observations go.
 */

export const MODEL_DEFAULTS = {
  /** Buy: 20 % down, 6 % fixed, 30-year standard annuity mortgage. */
  downPaymentPercentage: 20,
  interestRatePercentage: 6,
  mortgageLength: 30,
  /** About 1 % of the price a year, counted in "mortgage & taxes", not in operating expenses. */
  propertyTaxPercentage: 1,
  /** Closing costs, as a percent of the price, paid in cash. */
  closingCostPercentage: 3,
  /** Property appreciation a year. */
  appreciationPercentage: 3,
  /** Co-host commission when none is given. */
  cohostCommissionPercentage: 20,
  /** Long-term-rental operating expenses, as a percent of the rent. */
  ltrMonthlyExpensesPercentage: 12,
  /** Arbitrage: the deposit, in months of rent. */
  arbDepositMonths: 1,
} as const;

/**
 * Furnishing and set-up: report pages show 6,250 USD for one bedroom and 8,250 for two, which is
 * 4,250 plus 2,000 a bedroom (a studio counts as one).
 */
export function furnishingUSD(bedrooms: number): number {
  return 4250 + 2000 * Math.max(1, bedrooms);
}

/** Monthly payment of a standard annuity (fixed-rate) mortgage; 0 when nothing is borrowed. */
export function monthlyMortgagePayment(principal: number, annualRatePercentage: number, years: number): number {
  const n = Math.round(years * 12);
  if (principal <= 0 || n <= 0) return 0;
  const r = annualRatePercentage / 100 / 12;
  if (r === 0) return principal / n;
  return (principal * r) / (1 - (1 + r) ** -n);
}

/** What is still owed after `monthsPaid` payments. */
export function loanBalance(
  principal: number,
  annualRatePercentage: number,
  years: number,
  monthsPaid: number,
): number {
  const n = Math.round(years * 12);
  const m = Math.min(Math.max(0, Math.round(monthsPaid)), n);
  if (principal <= 0 || n <= 0) return 0;
  const r = annualRatePercentage / 100 / 12;
  if (r === 0) return principal * (1 - m / n);
  const g = 1 + r;
  return (principal * (g ** n - g ** m)) / (g ** n - 1);
}

export interface MortgageTerms {
  purchasePriceUSD: number;
  downPaymentPercentage: number;
  interestRatePercentage: number;
  /** Years the mortgage runs from origination. */
  mortgageLength: number;
  /** Years left now: equal to mortgageLength for a purchase. */
  yearsRemainingOnMortgage: number;
}

/** The mortgage over the coming year: payments made, principal paid down. */
export function mortgageYearOne(t: MortgageTerms): {
  loanUSD: number;
  monthlyPaymentUSD: number;
  paymentsUSD: number;
  principalPaydownUSD: number;
} {
  const loanUSD = t.purchasePriceUSD * (1 - t.downPaymentPercentage / 100);
  const monthlyPaymentUSD = monthlyMortgagePayment(loanUSD, t.interestRatePercentage, t.mortgageLength);
  const monthsPaid = Math.round((t.mortgageLength - t.yearsRemainingOnMortgage) * 12);
  const monthsThisYear = Math.min(12, Math.round(t.yearsRemainingOnMortgage * 12));
  const before = loanBalance(loanUSD, t.interestRatePercentage, t.mortgageLength, monthsPaid);
  const after = loanBalance(loanUSD, t.interestRatePercentage, t.mortgageLength, monthsPaid + monthsThisYear);
  return {
    loanUSD,
    monthlyPaymentUSD,
    paymentsUSD: monthlyPaymentUSD * monthsThisYear,
    principalPaydownUSD: before - after,
  };
}

export interface MortgageStrategyInputs extends MortgageTerms {
  propertyTaxPercentage: number;
  closingCostPercentage: number;
  furnishingUSD: number;
  appreciationPercentage: number;
  /** Projected short-term-rental revenue over the first year. */
  yearOneRevenueUSD: number;
  /** Operating expenses over the first year (excluding mortgage and property tax). */
  annualOperatingExpensesUSD: number;
  ltrPerMonthUSD: number;
  ltrMonthlyExpensesPercentage: number;
}

export type MortgageStrategyFields = Record<(typeof MORTGAGE_STRATEGY_FIELDS)[number], number>;

/** The buy and owned fields (spec: "Additional fields of data by strategy"). */
export function mortgageStrategyModel(i: MortgageStrategyInputs): MortgageStrategyFields {
  const price = i.purchasePriceUSD;
  const mortgage = mortgageYearOne(i);
  const annualTaxes = (price * i.propertyTaxPercentage) / 100;
  const operatingIncome = i.yearOneRevenueUSD - i.annualOperatingExpensesUSD;
  const mortgageAndTaxes = mortgage.paymentsUSD + annualTaxes;
  const cashFlow = operatingIncome - mortgageAndTaxes;
  const cash = (price * i.downPaymentPercentage) / 100 + (price * i.closingCostPercentage) / 100 + i.furnishingUSD;
  const appreciation = (price * i.appreciationPercentage) / 100;
  return {
    downPaymentPercentage: i.downPaymentPercentage,
    mortgageLength: i.mortgageLength,
    yearsRemainingOnMortgage: i.yearsRemainingOnMortgage,
    interestRatePercentage: i.interestRatePercentage,
    propertyTaxPercentage: i.propertyTaxPercentage,
    monthlyRevenueUSD: usd(i.yearOneRevenueUSD / 12),
    monthlyExpensesUSD: usd(i.annualOperatingExpensesUSD / 12),
    monthlyTaxesUSD: usd(annualTaxes / 12),
    yearOneRevenueUSD: usd(i.yearOneRevenueUSD),
    yearOneOperatingIncomeUSD: usd(operatingIncome),
    yearOneMorgageAndTaxesUSD: usd(mortgageAndTaxes),
    yearOneCashFlowUSD: usd(cashFlow),
    yearOneCashOnCashPercentage: pct(cashFlow, cash),
    yearOneCapRatePercentage: pct(operatingIncome, price),
    yearOneReturnOnInvestmentPercentage: pct(cashFlow + mortgage.principalPaydownUSD + appreciation, cash),
    yearOnePrincipalPaydownUSD: usd(mortgage.principalPaydownUSD),
    yearOneAppreciationUSD: usd(appreciation),
    totalCashInvestment: usd(cash),
    ltrPerMonthUSD: usd(i.ltrPerMonthUSD),
    ltrMonthlyExpensesPercentage: i.ltrMonthlyExpensesPercentage,
  };
}

export interface ArbInputs {
  monthlyRentUSD: number;
  yearOneRevenueUSD: number;
  annualOperatingExpensesUSD: number;
  furnishingUSD: number;
  depositMonths: number;
}

/** Rental arbitrage: revenue − rent − operating expenses; cash in = deposit + furnishing. */
export function arbModel(i: ArbInputs): Record<(typeof ARB_FIELDS)[number], number> {
  const rent = i.monthlyRentUSD * 12;
  const operatingIncome = i.yearOneRevenueUSD - i.annualOperatingExpensesUSD;
  const cashFlow = operatingIncome - rent;
  const cash = i.monthlyRentUSD * i.depositMonths + i.furnishingUSD;
  return {
    monthlyRentUSD: usd(i.monthlyRentUSD),
    yearOneRentUSD: usd(rent),
    monthlyRevenueUSD: usd(i.yearOneRevenueUSD / 12),
    monthlyExpensesUSD: usd(i.annualOperatingExpensesUSD / 12),
    yearOneRevenueUSD: usd(i.yearOneRevenueUSD),
    yearOneOperatingIncomeUSD: usd(operatingIncome),
    yearOneCashFlowUSD: usd(cashFlow),
    yearOneCashOnCashPercentage: pct(cashFlow, cash),
    totalCashInvestment: usd(cash),
  };
}

export interface CohostInputs {
  yearOneRevenueUSD: number;
  annualOperatingExpensesUSD: number;
  cohostCommissionPercentage: number;
}

/** Co-hosting: commission = revenue × percentage; the host's return = revenue − commission − expenses. */
export function cohostModel(i: CohostInputs): Record<(typeof COHOST_FIELDS)[number], number> {
  const commission = (i.yearOneRevenueUSD * i.cohostCommissionPercentage) / 100;
  return {
    yearOneRevenueUSD: usd(i.yearOneRevenueUSD),
    yearOneCohostCommissionUSD: usd(commission),
    yearOneCohostReturnUSD: usd(i.yearOneRevenueUSD - commission - i.annualOperatingExpensesUSD),
  };
}

/** Annual revenue = ADR × occupancy × 365 days. */
export function annualRevenue(ratePerNightUSD: number, occupancyFraction: number): number {
  return ratePerNightUSD * occupancyFraction * 365;
}

function usd(value: number): number {
  return round(value, 2);
}

/** `part` as a percent of `whole`, to 2 decimals; 0 when there is no whole to divide by. */
function pct(part: number, whole: number): number {
  return whole > 0 ? round((part / whole) * 100, 2) : 0;
}
