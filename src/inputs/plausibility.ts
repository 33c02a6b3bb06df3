/*
 * Plausibility bounds: values the service accepts (its rules are only "> 0" and wide maxima) but
 * that no real property has, so that they are almost always a typo or a misread number — a price of
 * 450 USD, a monthly rent of 4,500,000. A screening (task pane, str-screen) lists such rows in its
 * dry run and sends them only when the user confirms; formulas keep the service's rules and may
 * show `unusualValues` as a warning. docs/inputs.md lists the same table.
 */

export interface PlausibilityRule {
  /** The request field the rule is about (named by its column in messages). */
  field: string;
  /** What makes a value unusual, as the user reads it: "under 10,000 USD". */
  rule: string;
  unusual: (value: number, request: Readonly<Record<string, unknown>>) => boolean;
}

const price = (request: Readonly<Record<string, unknown>>) =>
  typeof request.purchasePriceUSD === "number" ? request.purchasePriceUSD : undefined;

export const PLAUSIBILITY_RULES: readonly PlausibilityRule[] = [
  { field: "purchasePriceUSD", rule: "under 10,000 USD", unusual: (v) => v < 10_000 },
  { field: "purchasePriceUSD", rule: "over 20,000,000 USD", unusual: (v) => v > 20_000_000 },
  { field: "monthlyRentUSD", rule: "under 100 USD a month", unusual: (v) => v < 100 },
  { field: "monthlyRentUSD", rule: "over 50,000 USD a month", unusual: (v) => v > 50_000 },
  // A year's rent above the price is no long-term rent: one of the two is misread.
  { field: "monthlyRentUSD", rule: "above the price / 12", unusual: (v, r) => (price(r) ?? Infinity) < v * 12 },
  { field: "bedrooms", rule: "over 15", unusual: (v) => v > 15 },
  { field: "bathrooms", rule: "over 15", unusual: (v) => v > 15 },
  { field: "accomodates", rule: "over 30 guests", unusual: (v) => v > 30 },
  // Co-hosts charge 10–30 % of revenue: past half, a fraction was most likely misread.
  { field: "cohostCommissionPercentage", rule: "over 50 %", unusual: (v) => v > 50 },
  { field: "squareFeet", rule: "under 150 or over 20,000 square feet", unusual: (v) => v < 150 || v > 20_000 },
];

export interface UnusualValue {
  field: string;
  value: number;
  rule: string;
}

/** The values of a request (already valid by the service's rules) outside the plausibility bounds. */
export function unusualValues(request: Readonly<Record<string, unknown>>): UnusualValue[] {
  const found: UnusualValue[] = [];
  for (const { field, rule, unusual } of PLAUSIBILITY_RULES) {
    const value = request[field];
    if (typeof value === "number" && unusual(value, request)) found.push({ field, value, rule });
  }
  return found;
}
