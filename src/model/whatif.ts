import { Analysis, PercentileKey } from "../contract/analysis";
import {
  MODEL_DEFAULTS,
  MortgageStrategyInputs,
  annualRevenue,
  arbModel,
  cohostModel,
  mortgageStrategyModel,
  mortgageYearOne,
} from "./finance";
import { round } from "../contract/numbers";

/*
 * What-if underwriting, computed locally from an analysis the service already made: other
 * financing, another revenue scenario, other rent or commission — never billed, no call at all
 * (STR.WHATIF, STR.SENSITIVITY). It uses the service's own model (finance.ts) and reads the inputs
 * the answer does not state from the figures it does:
 *
 * - the purchase price from the appreciation (3 % of it) or the property tax (its stated rate);
 * - furnishing from the total cash invested less the down payment and closing costs (3 %);
 * - the appreciation rate from the appreciation and the price;
 * - operating expenses from the monthly expenses, held fixed when revenue changes (the service's
 *   split between fixed and revenue-linked expenses is not in its answer);
 * - for co-hosting, expenses as revenue less commission less the host's return.
 * With an analysis's own inputs, the figures come back as the service gave them, within rounding.
 */

export type WhatIfKind = "mortgage" | "arb" | "cohost";

/** What to change; anything left out keeps the analysis's own value. */
export interface WhatIfInputs {
  purchasePriceUSD?: number | undefined;
  downPaymentPercentage?: number | undefined;
  interestRatePercentage?: number | undefined;
  mortgageLength?: number | undefined;
  /** Revenue at a percentile of the comparables instead of the analysis's own projection. */
  scenario?: PercentileKey | undefined;
  /** Annual revenue, USD (wins over scenario, occupancy and nightly rate). */
  yearOneRevenueUSD?: number | undefined;
  /** Occupancy as a fraction of 1 (revenue = nightly rate × occupancy × 365). */
  occupancy?: number | undefined;
  /** Nightly rate, USD. */
  ratePerNightUSD?: number | undefined;
  /** Arbitrage: the rent paid, USD a month. */
  monthlyRentUSD?: number | undefined;
  /** Co-hosting: the commission, percent of revenue. */
  cohostCommissionPercentage?: number | undefined;
  /** Operating expenses, USD a month. */
  monthlyExpensesUSD?: number | undefined;
}

export type WhatIfResult = { ok: true; analysis: Analysis; kind: WhatIfKind } | { ok: false; message: string };

const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

/** Which of the service's models an analysis comes from, told by its fields. */
export function whatIfKind(a: Analysis): WhatIfKind | undefined {
  if (num(a.yearOneCohostCommissionUSD) !== undefined || num(a.yearOneCohostReturnUSD) !== undefined) return "cohost";
  if (num(a.yearOneMorgageAndTaxesUSD) !== undefined || num(a.mortgageLength) !== undefined) return "mortgage";
  if (num(a.yearOneRentUSD) !== undefined || num(a.monthlyRentUSD) !== undefined) return "arb";
  return undefined;
}

/**
 * The purchase price an analysis was made for, read back from its figures. Taxes are a stated rate
 * of the price but rounded to the cent a month (a price off by a few dollars); appreciation is
 * rounded to the cent a year (off by cents) but its rate is an observation (about 3 %). So the
 * appreciation's price is used when it agrees with the taxes' within half a percent, else the taxes'.
 */
export function impliedPrice(a: Analysis): number | undefined {
  const taxes = num(a.monthlyTaxesUSD);
  const rate = num(a.propertyTaxPercentage);
  const fromTaxes = taxes !== undefined && rate !== undefined && rate > 0 ? (taxes * 12 * 100) / rate : undefined;
  const appreciation = num(a.yearOneAppreciationUSD);
  const fromAppreciation =
    appreciation !== undefined && appreciation > 0
      ? (appreciation * 100) / MODEL_DEFAULTS.appreciationPercentage
      : undefined;
  if (
    fromAppreciation !== undefined &&
    (fromTaxes === undefined || Math.abs(fromAppreciation - fromTaxes) <= fromTaxes * 0.005)
  )
    return round(fromAppreciation, 0);
  return fromTaxes === undefined ? undefined : round(fromTaxes, 0);
}

/** The year's revenue the inputs call for. */
function revenueOf(a: Analysis, i: WhatIfInputs): number | undefined {
  if (i.yearOneRevenueUSD !== undefined) return i.yearOneRevenueUSD;
  if (i.occupancy !== undefined || i.ratePerNightUSD !== undefined) {
    const adr = i.ratePerNightUSD ?? num(a.ratePerNightUSD);
    const occupancy =
      i.occupancy ??
      (num(a.occupancyRatePercentage) === undefined ? undefined : (a.occupancyRatePercentage as number) / 100);
    return adr === undefined || occupancy === undefined ? undefined : annualRevenue(adr, occupancy);
  }
  if (i.scenario !== undefined) return num(a.revenue[i.scenario]);
  return num(a.yearOneRevenueUSD);
}

export function whatIf(a: Analysis, inputs: WhatIfInputs = {}): WhatIfResult {
  const kind = whatIfKind(a);
  if (!kind)
    return {
      ok: false,
      message: "the analysis has none of the fields a what-if needs (cash flow, mortgage, rent or commission)",
    };
  const revenue = revenueOf(a, inputs);
  if (revenue === undefined)
    return {
      ok: false,
      message: `the analysis has no ${inputs.scenario ? `revenue.${inputs.scenario}` : "year-one revenue"} to start from`,
    };
  const monthlyExpenses = inputs.monthlyExpensesUSD ?? num(a.monthlyExpensesUSD);
  const base: Analysis = { ...a, yearOneRevenueUSD: round(revenue, 2) };
  if (inputs.ratePerNightUSD !== undefined) base.ratePerNightUSD = inputs.ratePerNightUSD;
  if (inputs.occupancy !== undefined) base.occupancyRatePercentage = round(inputs.occupancy * 100, 2);

  if (kind === "cohost") {
    const commissionUSD = num(a.yearOneCohostCommissionUSD);
    const hostReturn = num(a.yearOneCohostReturnUSD);
    const ownRevenue = num(a.yearOneRevenueUSD);
    if (commissionUSD === undefined || hostReturn === undefined || ownRevenue === undefined)
      return { ok: false, message: "the co-host analysis lacks its commission or return" };
    const expenses = monthlyExpenses !== undefined ? monthlyExpenses * 12 : ownRevenue - commissionUSD - hostReturn;
    const pct =
      inputs.cohostCommissionPercentage ??
      (ownRevenue > 0 ? (commissionUSD / ownRevenue) * 100 : MODEL_DEFAULTS.cohostCommissionPercentage);
    return {
      ok: true,
      kind,
      analysis: Object.assign(
        base,
        cohostModel({
          yearOneRevenueUSD: revenue,
          annualOperatingExpensesUSD: expenses,
          cohostCommissionPercentage: pct,
        }),
      ),
    };
  }
  if (monthlyExpenses === undefined) return { ok: false, message: "the analysis has no monthly expenses" };

  if (kind === "arb") {
    const rent = inputs.monthlyRentUSD ?? num(a.monthlyRentUSD);
    if (rent === undefined) return { ok: false, message: "the arbitrage analysis has no monthly rent" };
    const ownRent = num(a.monthlyRentUSD) ?? rent;
    const furnishing = (num(a.totalCashInvestment) ?? 0) - ownRent * MODEL_DEFAULTS.arbDepositMonths;
    return {
      ok: true,
      kind,
      analysis: Object.assign(
        base,
        arbModel({
          monthlyRentUSD: rent,
          yearOneRevenueUSD: revenue,
          annualOperatingExpensesUSD: monthlyExpenses * 12,
          furnishingUSD: furnishing,
          depositMonths: MODEL_DEFAULTS.arbDepositMonths,
        }),
      ),
    };
  }

  const model = mortgageInputs(a, inputs);
  if (!model.ok) return model;
  // One copy of the analysis per what-if (a 100 × 100 grid makes ten thousand).
  return { ok: true, kind, analysis: Object.assign(base, mortgageStrategyModel(model.inputs)) };
}

/**
 * The buy/owned model's inputs for a what-if: the analysis's own, read back from its figures, with
 * the changes asked for. STR.MAXBID varies the price in them, STR.PROJECTION starts its years from them.
 */
export function mortgageInputs(
  a: Analysis,
  inputs: WhatIfInputs,
): { ok: true; inputs: MortgageStrategyInputs } | { ok: false; message: string } {
  const revenue = revenueOf(a, inputs);
  const monthlyExpenses = inputs.monthlyExpensesUSD ?? num(a.monthlyExpensesUSD);
  if (revenue === undefined || monthlyExpenses === undefined)
    return {
      ok: false,
      message: `the analysis has no ${revenue === undefined ? "year-one revenue" : "monthly expenses"}`,
    };
  const ownPrice = impliedPrice(a);
  const price = inputs.purchasePriceUSD ?? ownPrice;
  if (price === undefined || ownPrice === undefined)
    return { ok: false, message: "the analysis does not show its purchase price (no property tax or appreciation)" };
  const ownDown = num(a.downPaymentPercentage) ?? MODEL_DEFAULTS.downPaymentPercentage;
  const ownLength = num(a.mortgageLength) ?? MODEL_DEFAULTS.mortgageLength;
  const ownRemaining = num(a.yearsRemainingOnMortgage) ?? ownLength;
  const closing = MODEL_DEFAULTS.closingCostPercentage;
  const furnishing = (num(a.totalCashInvestment) ?? 0) - (ownPrice * (ownDown + closing)) / 100;
  const appreciation =
    ownPrice > 0 && num(a.yearOneAppreciationUSD) !== undefined
      ? ((a.yearOneAppreciationUSD as number) / ownPrice) * 100
      : MODEL_DEFAULTS.appreciationPercentage;
  const length = inputs.mortgageLength ?? ownLength;
  // A purchase starts its mortgage now; an owned property keeps the years it has left, within the new length.
  const remaining = ownRemaining >= ownLength ? length : Math.min(ownRemaining, length);
  return {
    ok: true,
    inputs: {
      purchasePriceUSD: price,
      downPaymentPercentage: inputs.downPaymentPercentage ?? ownDown,
      interestRatePercentage:
        inputs.interestRatePercentage ?? num(a.interestRatePercentage) ?? MODEL_DEFAULTS.interestRatePercentage,
      mortgageLength: length,
      yearsRemainingOnMortgage: remaining,
      propertyTaxPercentage: num(a.propertyTaxPercentage) ?? MODEL_DEFAULTS.propertyTaxPercentage,
      closingCostPercentage: closing,
      furnishingUSD: furnishing,
      appreciationPercentage: appreciation,
      yearOneRevenueUSD: revenue,
      annualOperatingExpensesUSD: monthlyExpenses * 12,
      ltrPerMonthUSD: num(a.ltrPerMonthUSD) ?? 0,
      ltrMonthlyExpensesPercentage: num(a.ltrMonthlyExpensesPercentage) ?? MODEL_DEFAULTS.ltrMonthlyExpensesPercentage,
    },
  };
}

/**
 * Investor metrics the service does not return (docs/service/observed-behaviour.md, "Investors' habits"),
 * computed from an analysis's own fields; undefined where its strategy has no such figure.
 */
export const INVESTOR_METRICS = {
  /** The purchase price the analysis was made for, read back from its figures (impliedPrice). */
  purchasePriceUSD(a: Analysis): number | undefined {
    return whatIfKind(a) === "mortgage" ? impliedPrice(a) : undefined;
  },
  /** What is borrowed: the price less the down payment (finance.ts's mortgageYearOne). */
  loanAmountUSD(a: Analysis): number | undefined {
    const mortgage = mortgageOf(a);
    return mortgage === undefined ? undefined : round(mortgage.loanUSD, 2);
  },
  /** The annuity's monthly payment, without the property tax (finance.ts's mortgageYearOne). */
  monthlyMortgagePaymentUSD(a: Analysis): number | undefined {
    const mortgage = mortgageOf(a);
    return mortgage === undefined ? undefined : round(mortgage.monthlyPaymentUSD, 2);
  },
  /** Debt service coverage: operating income ÷ mortgage & taxes (the PITI lenders of DSCR loans use). */
  dscr(a: Pick<Analysis, "yearOneOperatingIncomeUSD" | "yearOneMorgageAndTaxesUSD">): number | undefined {
    const income = num(a.yearOneOperatingIncomeUSD);
    const debt = num(a.yearOneMorgageAndTaxesUSD);
    return income === undefined || debt === undefined || debt <= 0 ? undefined : round(income / debt, 4);
  },
  /** Occupancy at which revenue covers operating expenses and mortgage & taxes (or rent): a fraction. */
  breakEvenOccupancy(a: Analysis): number | undefined {
    const adr = num(a.ratePerNightUSD);
    const expenses = num(a.monthlyExpensesUSD);
    const fixed = num(a.yearOneMorgageAndTaxesUSD) ?? num(a.yearOneRentUSD);
    if (adr === undefined || adr <= 0 || expenses === undefined || fixed === undefined) return undefined;
    return round((expenses * 12 + fixed) / (adr * 365), 4);
  },
  /** Gross yield: a year's revenue ÷ the purchase price. */
  grossYield(a: Analysis): number | undefined {
    const price = whatIfKind(a) === "mortgage" ? impliedPrice(a) : undefined;
    const revenue = num(a.yearOneRevenueUSD);
    return price === undefined || price <= 0 || revenue === undefined ? undefined : round(revenue / price, 4);
  },
  /** Cash flow if revenue were the comparables' 25th percentile (the bear case). */
  bearCashFlowUSD(a: Analysis): number | undefined {
    return scenarioCashFlow(a, "p25");
  },
  /** Cash flow if revenue were the comparables' 75th percentile (the bull case). */
  bullCashFlowUSD(a: Analysis): number | undefined {
    return scenarioCashFlow(a, "p75");
  },
} as const;

export type InvestorMetric = keyof typeof INVESTOR_METRICS;

/** The mortgage of a buy or owned analysis at its own terms; undefined for other strategies. */
function mortgageOf(a: Analysis): ReturnType<typeof mortgageYearOne> | undefined {
  if (whatIfKind(a) !== "mortgage") return undefined;
  const model = mortgageInputs(a, {});
  return model.ok ? mortgageYearOne(model.inputs) : undefined;
}

function scenarioCashFlow(a: Analysis, scenario: PercentileKey): number | undefined {
  const kind = whatIfKind(a);
  if (kind !== "mortgage" && kind !== "arb") return undefined;
  const result = whatIf(a, { scenario });
  return result.ok ? num(result.analysis.yearOneCashFlowUSD) : undefined;
}
