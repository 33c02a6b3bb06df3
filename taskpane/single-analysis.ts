/*
 * One property, from its address: the form read as a table row is (the same readers, so "$347,500"
 * and "3 bd" read as they do in a table), priced first with the relay's dry run (nothing sent),
 * then bought on the investor's confirmation. The figures shown are the card's decision figures.
 */
import { RelayClient } from "../src/client";
import { Analysis, FieldInfo, FieldIssue, RelayAnswer, findField } from "../src/contract";
import { CellInput, InputField, NumberStyle, readRow } from "../src/inputs";
import { analysisOf, readField, warningTexts } from "../src/sheet";
import { PricedRun } from "./run-offer";

/** The form's fields, in the order the form shows them, with the labels that name them in messages. */
export const PROPERTY_FORM: readonly (readonly [field: InputField, label: string])[] = [
  ["fullAddress", "Address"],
  ["purchasePriceUSD", "Purchase price"],
  ["bedrooms", "Bedrooms"],
  ["bathrooms", "Bathrooms"],
  ["accomodates", "Guests"],
];

export type PropertyRequest = { ok: true; params: Record<string, unknown> } | { ok: false; issues: FieldIssue[] };

/** The form's values as a buy request, or what is wrong with them, naming the form's labels. */
export function propertyRequest(values: readonly CellInput[], numbers: NumberStyle = "unknown"): PropertyRequest {
  const read = readRow(
    values,
    PROPERTY_FORM.map(([field]) => field),
    { strategy: "buy", headers: PROPERTY_FORM.map(([, label]) => label), numbers },
  );
  if (read.kind === "blank") return { ok: false, issues: [{ path: "Address", message: "is required" }] };
  if (read.kind === "invalid") return { ok: false, issues: read.issues };
  return { ok: true, params: read.request as Record<string, unknown> };
}

export interface PropertyPrice extends PricedRun {
  /** The relay has this analysis already: free. */
  cached: boolean;
  sandbox: boolean;
}

/** What buying the analysis costs, from the relay's dry run: nothing is sent. */
export async function priceProperty(
  client: Pick<RelayClient, "dryRun">,
  params: Record<string, unknown>,
): Promise<PropertyPrice> {
  const answer = await client.dryRun([{ strategy: "buy", params }]);
  return {
    items: answer.items,
    toCreate: answer.toCreate,
    estimatedCostUSD: answer.estimatedCostUSD,
    budgetRemainingUSD: answer.budgetRemainingUSD,
    cached: answer.cached > 0,
    sandbox: answer.sandbox,
  };
}

/** The decision figures of a purchase, first the returns, then the market, then the report. */
const DECISION_PATHS = [
  "yearOneCashFlowUSD",
  "yearOneCashOnCashPercentage",
  "yearOneCapRatePercentage",
  "totalCashInvestment",
  "yearOneRevenueUSD",
  "ratePerNightUSD",
  "occupancyRatePercentage",
  "monthlyExpensesUSD",
  "yearOneMorgageAndTaxesUSD",
];

export interface PropertyResult {
  analysis: Analysis;
  answer: RelayAnswer;
  /** The figures the analysis has, in DECISION_PATHS order, with their units. */
  figures: { field: FieldInfo; value: number | string }[];
  warnings: string[];
}

/** Buys (or takes from the cache) the analysis of the property. */
export async function analyzeProperty(
  client: Pick<RelayClient, "analyze">,
  params: Record<string, unknown>,
): Promise<PropertyResult> {
  const answer = await client.analyze("buy", params);
  const analysis = analysisOf(answer) as Analysis;
  const figures = DECISION_PATHS.flatMap((path) => {
    const field = findField(path);
    const value = field ? readField(analysis, field) : "";
    return field && (typeof value === "number" || (typeof value === "string" && value !== ""))
      ? [{ field, value }]
      : [];
  });
  return { analysis, answer, figures, warnings: warningTexts(answer) };
}
